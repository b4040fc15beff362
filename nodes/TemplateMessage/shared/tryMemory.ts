import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { fingerprint } from './fingerprint';
import { asTool, TOOL_CALL_ID } from './howRun';

/**
 * The name, in n8n's per-execution contextData, of what one run of an operation keeps for the tries n8n's
 * Retry On Fail makes of it: by the run's index, or, run as a tool, by the call. n8n gives each try of a tool
 * called through LangChain a new run index, so a tool's memory is keyed by what every try of its call shares:
 * the agent's input to the tool and what the call acts on (`actsOn`: a value such as `$now` changes between
 * tries). n8n 2.x's engine adds the call's id to the input: left out, so that an agent calling again with the
 * same arguments (after "delivery unknown", as agents do) finds what the first call did.
 */
export function tryMemoryName(ctx: IExecuteFunctions, kind: string, runIndex: number, actsOn: () => unknown): string {
	if (!asTool(ctx)) return runScopedName(ctx.getContext('node'), kind, runIndex);
	const input = ctx.getInputData().map(({ json }) => Object.fromEntries(Object.entries(json).filter(([name]) => name !== TOOL_CALL_ID)));
	return `${kind}-as-tool-${fingerprint(JSON.stringify([input, actsOn()]))}`;
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
