import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { fingerprint } from './fingerprint';

/**
 * Run by an AI Agent as its tool. n8n gives each try of a tool (its Retry On Fail) a new run index, so a
 * tool's memory is its call's own, keyed by what every try of the call shares: the agent's input to the tool
 * (n8n 2.x adds the call's id) and what the call acts on (a value such as `$now` changes between tries).
 * Another call, or one made at the same time, has its own. n8n names a node's tool form after it (`…Tool`);
 * 1.123 and earlier have no isToolExecution.
 */
export function asTool(ctx: IExecuteFunctions): boolean {
	return ctx.isToolExecution?.() === true || ctx.getNode().type.endsWith('Tool');
}

/**
 * The name, in n8n's per-execution contextData, of what one run of an operation keeps for the tries n8n's
 * Retry On Fail makes of it: by the run's index, or, run as a tool, by the call (`call`: what every try of it
 * shares, see asTool).
 */
export function tryMemoryName(ctx: IExecuteFunctions, kind: string, runIndex: number, call: () => unknown): string {
	return asTool(ctx) ? `${kind}-as-tool-${fingerprint(JSON.stringify(call()))}` : runScopedName(ctx.getContext('node'), kind, runIndex);
}

/**
 * `<kind>-run-<runIndex>`. n8n's Retry On Fail runs the node again at the same index, never an earlier one
 * (Loop Over Items runs it once per batch): the earlier runs' are dropped, so that what the execution saves does
 * not grow with its batches.
 */
export function runScopedName(context: IDataObject, kind: string, runIndex: number): string {
	const prefix = `${kind}-run-`;
	for (const name of Object.keys(context)) {
		const run = name.startsWith(prefix) ? name.slice(prefix.length) : '';
		if (/^\d+$/.test(run) && Number(run) < runIndex) delete context[name];
	}
	return `${prefix}${runIndex}`;
}
