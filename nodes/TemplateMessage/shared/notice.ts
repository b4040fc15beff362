import type { IExecuteFunctions } from 'n8n-workflow';

/** Where the node tells the user about the whole run: n8n's log, and the hints above the node's output. */
export interface Notices {
	log(message: string, level?: 'info' | 'warn'): void;
	hint(message: string): void;
}

export function noticesOf(ctx: IExecuteFunctions): Notices {
	return {
		log: (message, level = 'info') => ctx.logger[level](message, { nodeName: ctx.getNode().name }),
		hint: (message) => ctx.addExecutionHints?.({ message, location: 'outputPane' }),
	};
}

export function notice(to: IExecuteFunctions | Notices, message: string, level: 'info' | 'warn' = 'info'): void {
	const notices = 'logger' in to ? noticesOf(to) : to;
	notices.log(message, level);
	notices.hint(message);
}
