import type { IExecuteFunctions } from 'n8n-workflow';

import type { RunOptions, SendOnce } from '../shared/contracts';
import { FIELD, FIELD_DEFAULT, SEND_ONCE_CHOICE } from '../shared/fieldNames';
import { optionPath, optionsOfScope, readOptions } from '../shared/options';
import { readChoice, runOptionRefused } from '../shared/optionSpec';
import { readRunParameter } from './parameters';

/** Read once, from the first item: they govern the whole run. */
export function readRunOptions(ctx: IExecuteFunctions): RunOptions {
	return {
		...readOptions(
			optionsOfScope('run', ctx.getNode().parameters.options, (name) => readRunParameter(ctx, `options.${name}`, optionPath(name))),
			'run',
			ctx.getNode().typeVersion,
			runOptionRefused(ctx.getNode()),
		),
		sendOnce: readSendOnce(ctx),
	};
}

/** Send Once takes no expression in the editor; a saved workflow can still hold one, or a value of a later version. */
function readSendOnce(ctx: IExecuteFunctions): SendOnce {
	const refuse = runOptionRefused(ctx.getNode());
	const choices = Object.keys(SEND_ONCE_CHOICE) as SendOnce[];
	const hint = `Pick one of its choices in the node (${Object.values(SEND_ONCE_CHOICE).join(', ')}); it takes no expression`;
	return readChoice(readRunParameter(ctx, 'sendOnce', FIELD.sendOnce, FIELD_DEFAULT.sendOnce), choices, (problem, why) => refuse(FIELD.sendOnce, problem, why), hint);
}
