/**
 * A problem with one field of one item, found before anything is sent.
 * Kept free of n8n types so the payload builder stays a pure function; the node turns it into
 * a NodeOperationError that carries the item index.
 */
export class InvalidFieldError extends Error {
	constructor(
		readonly field: string,
		readonly problem: string,
		readonly hint?: string,
	) {
		super(`${field}: ${problem}`);
		this.name = 'InvalidFieldError';
	}
}
