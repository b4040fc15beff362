import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * Run by an AI Agent as its tool. n8n names a node's tool form after it (`…Tool`); 1.123 and earlier have no
 * isToolExecution.
 */
export function asTool(ctx: IExecuteFunctions): boolean {
	return ctx.isToolExecution?.() === true || ctx.getNode().type.endsWith('Tool');
}

/**
 * Whether a failed item is a row, the others going on (Continue On Fail), or fails the run. Run as a tool, always
 * a row, whatever On Error says: an agent reads the tool's output and nothing else, n8n 2.x hands it a thrown
 * error's message without its description (what to do, and that a message may have gone out), and n8n 1.x fails the
 * whole chat execution with it.
 */
export function failuresAsRows(ctx: IExecuteFunctions): boolean {
	return asTool(ctx) || ctx.continueOnFail();
}

/** Whether failed items go to n8n's error output ("Continue (using error output)"). A tool has no such output. */
export function routesToErrorOutput(ctx: IExecuteFunctions): boolean {
	return ctx.getNode().onError === 'continueErrorOutput' && !asTool(ctx);
}

/**
 * n8n's engine empties a tool's output when its On Error is "Continue (using error output)" and it runs the tool for
 * the default Agent, by an engine request (1.123 and 2.41 alike; the input then holds the call's `toolCallId`): the
 * agent would read nothing, not even that a message went out, and might send it again. Refused before anything is
 * done. Agent v1 and v2 call the tool through LangChain, which hands the agent the rows.
 */
export function refuseToolWithErrorOutput(ctx: IExecuteFunctions): void {
	if (ctx.getNode().onError !== 'continueErrorOutput' || !asTool(ctx)) return;
	if (!ctx.getInputData().some(({ json }) => TOOL_CALL_ID in json)) return;
	throw new NodeOperationError(ctx.getNode(), 'On Error is "Continue (using error output)", which a tool has no output for: nothing was done', {
		description: "n8n then hands the agent nothing, not even a sent message's row, and the agent could send it again. In the tool's Settings, set On Error to Continue or Stop Workflow: failures come back to the agent as rows either way.",
	});
}

/** What n8n's engine names the id of an agent's tool call in the tool's input item (2.x, and 1.123's default Agent). */
export const TOOL_CALL_ID = 'toolCallId';

const requested = new WeakSet<object>();

/** A request of this run left for the API (a tool's failure after one may hide a sent message: see the router). */
export function markRequested(ctx: IExecuteFunctions): void {
	requested.add(ctx);
}

export function hasRequested(ctx: IExecuteFunctions): boolean {
	return requested.has(ctx);
}
