import type { IExecuteFunctions } from 'n8n-workflow';

/** Says something about the whole run twice: in n8n's log, and as a hint above the node's output. */
export function notice(ctx: IExecuteFunctions, message: string, level: 'info' | 'warn' = 'info'): void {
	ctx.logger[level](message, { nodeName: ctx.getNode().name });
	ctx.addExecutionHints?.({ message, location: 'outputPane' });
}
