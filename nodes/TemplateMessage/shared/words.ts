/** The text as a sentence or a name starts it: its first letter upper case. */
export function capitalised(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}
