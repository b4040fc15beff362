/** A short hash of a text (FNV-1a, two 32-bit lanes), for telling messages apart, not for secrecy. */
export function fingerprint(text: string): string {
	let a = 0x811c9dc5;
	let b = 0x01000193 ^ text.length;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		a = Math.imul(a ^ c, 0x01000193);
		b = Math.imul(b ^ c, 0x5bd1e995);
	}
	return (a >>> 0).toString(36) + (b >>> 0).toString(36);
}
