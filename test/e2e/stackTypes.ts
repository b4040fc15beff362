/** What scripts/stack.js hands the end-to-end tests (it is plain JavaScript). */
export type Stack = { url: string; stop(): Promise<void> };
export type Sandbox = Stack & { token: string; messages: Array<{ msgid: string; request: any }>; stats: Record<string, number> };
export type N8n = Stack & { output(): string };
