export function isControlCharacter(code: number): boolean {
	return code < 0x20 || code === 0x7f;
}

export function hasControlCharacter(text: string): boolean {
	for (let i = 0; i < text.length; i++) {
		if (isControlCharacter(text.charCodeAt(i))) return true;
	}
	return false;
}
