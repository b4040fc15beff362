/** Free of n8n types so the payload builder stays pure; the node makes it a NodeOperationError with the item index. */
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
