export function isControlCharacter(code: number): boolean {
	return code < 0x20 || code === 0x7f;
}

export function hasControlCharacter(text: string): boolean {
	return [...text].some((character) => isControlCharacter(character.charCodeAt(0)));
}
