import type { IExecuteFunctions } from 'n8n-workflow';

/** Where the node tells the user about the whole run: n8n's log, and the hints above the node's output. */
export interface Notices {
	log(message: string, level?: 'info' | 'warn'): void;
	hint(message: string): void;
}

/**
 * A line in n8n's log, saying which workflow, node and execution it is from: n8n prints only the message
 * unless it logs as JSON, and many workflows may share one log.
 */
export function logLine(ctx: IExecuteFunctions, message: string, level: 'info' | 'warn' = 'info'): void {
	const node = ctx.getNode().name;
	const workflow = ctx.getWorkflow();
	const executionId = ctx.getExecutionId?.();
	// Quoted as JSON: a name with a line break or a quote stays one readable line.
	const where = `workflow ${JSON.stringify(String(workflow.name ?? workflow.id))}, node ${JSON.stringify(node)}${executionId ? `, execution ${executionId}` : ''}`;
	ctx.logger[level](`[${where}] ${message}`, { nodeName: node, workflowId: workflow.id, executionId });
}

export function noticesOf(ctx: IExecuteFunctions): Notices {
	return {
		log: (message, level = 'info') => logLine(ctx, message, level),
		hint: (message) => ctx.addExecutionHints?.({ message, location: 'outputPane' }),
	};
}

export function notice(to: IExecuteFunctions | Notices, message: string, level: 'info' | 'warn' = 'info'): void {
	const notices = 'logger' in to ? noticesOf(to) : to;
	notices.log(message, level);
	notices.hint(message);
}
