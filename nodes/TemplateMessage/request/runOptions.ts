import type { IExecuteFunctions } from 'n8n-workflow';

import type { RunOptions, SendOnce } from '../shared/contracts';
import { FIELD_DEFAULT } from '../shared/fieldNames';
import { optionsOfScope, readOptions } from '../shared/options';
import { runOptionRefused } from '../shared/optionSpec';

/** Read once, from the first item: they govern the whole run. */
export function readRunOptions(ctx: IExecuteFunctions): RunOptions {
	return {
		...readOptions(
			optionsOfScope('run', ctx.getNode().parameters.options, (name) => ctx.getNodeParameter(`options.${name}`, 0)),
			'run',
			ctx.getNode().typeVersion,
			runOptionRefused(ctx.getNode()),
		),
		sendOnce: ctx.getNodeParameter('sendOnce', 0, FIELD_DEFAULT.sendOnce) as SendOnce,
	};
}
