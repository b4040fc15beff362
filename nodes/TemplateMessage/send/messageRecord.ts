import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

/**
 * The record of messages sent by earlier executions, kept in n8n's own database through the
 * deduplication store every node is given (the one n8n's Remove Duplicates node uses). It
 * survives restarts and is shared by every worker of a queue-mode set-up. The record belongs to
 * the workflow, so a Template Message node set to "Forget Sent Messages" reaches what the sending
 * nodes of the same workflow recorded. Keys carry a prefix of their own, so they do not meet the
 * values a Remove Duplicates node of the same workflow records.
 */
export class MessageRecord {
	/** Tells this run's markers from any other run's (see claim). */
	private readonly runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;

	private constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly workflowId: string,
		private readonly options: ICheckProcessedOptions,
	) {}

	/** The workflow's record, or an error that says why this n8n or this run cannot keep one. */
	static open(ctx: IExecuteFunctions, maxEntries?: number): MessageRecord {
		const node = ctx.getNode();
		if (typeof ctx.helpers.checkProcessedAndRecord !== 'function' || typeof ctx.helpers.removeProcessed !== 'function') {
			throw new NodeOperationError(node, 'This n8n does not give nodes its deduplication store, which Send Once needs', {
				description: 'Update n8n (1.78 and later have it), or set Send Once to Off.',
			});
		}
		const workflowId = ctx.getWorkflow().id;
		if (!workflowId) {
			throw new NodeOperationError(node, 'Send Once needs a saved workflow: this one has no id yet', {
				description: 'n8n keeps the record of sent messages per workflow. Save the workflow, then run it again.',
			});
		}
		return new MessageRecord(ctx, String(workflowId), { mode: 'entries', maxEntries });
	}

	/** Records the keys; returns those that were recorded already. */
	async recordNew(keys: string[]): Promise<Set<string>> {
		if (keys.length === 0) return new Set();
		return new Set(await this.serialized(() => this.checkAndRecord(keys)));
	}

	/**
	 * Records the keys of messages about to be sent, and tells which were recorded already (by an
	 * earlier execution) and which another execution recorded at the same moment (`raced`).
	 *
	 * n8n's store reads the record, then writes it back, with no lock: two queue-mode workers
	 * recording at once can both find a key new, and the later write replaces the earlier. So each
	 * key goes in with a marker of this run, and after a pause longer than a store call both are
	 * looked up again. The marker still there: this run's write stands, it sends. The marker gone
	 * but the key there: a concurrent write of another run that recorded the same key replaced this
	 * one, the message is left to that run. Both gone: a concurrent write about other keys replaced
	 * this one; the lookup has recorded them again, and they are looked up once more. The markers
	 * are removed at the end.
	 */
	async claim(keys: string[]): Promise<{ recordedBefore: Set<string>; raced: Set<string> }> {
		const raced = new Set<string>();
		if (keys.length === 0) return { recordedBefore: new Set(), raced };
		return await this.serialized(async () => {
			const marker = (key: string) => `${key}${MARKER}${this.runId}`;
			const withMarkers = (list: string[]) => [...list, ...list.map(marker)];
			const started = Date.now();
			const recordedBefore = new Set(await this.checkAndRecord(withMarkers(keys), keys.length));
			const settleMs = Math.max(SETTLE_MS, 2 * (Date.now() - started));
			let unconfirmed = keys.filter((key) => !recordedBefore.has(key));
			try {
				for (let lookup = 1; unconfirmed.length > 0; lookup++) {
					await sleep(settleMs);
					const found = new Set(await this.checkAndRecord(withMarkers(unconfirmed), keys.length));
					for (const key of unconfirmed) if (!found.has(marker(key)) && found.has(key)) raced.add(key);
					unconfirmed = unconfirmed.filter((key) => !found.has(marker(key)) && !found.has(key));
					// Overwritten on every lookup: not sent rather than perhaps sent twice.
					if (lookup >= LOOKUPS) for (const key of unconfirmed.splice(0)) raced.add(key);
				}
			} finally {
				await this.ctx.helpers.removeProcessed(keys.map(marker).map(stored), SCOPE, this.options);
			}
			for (const key of keys) recordedBefore.delete(marker(key));
			return { recordedBefore, raced };
		});
	}

	/**
	 * One call to n8n's store: records the values, returns those recorded already. `room` more
	 * entries than the record keeps are allowed for the call, so that markers push no key out.
	 * Tried again after a failure: two workers creating the workflow's record at the same moment
	 * make one insert fail, and the failed call wrote nothing.
	 */
	private async checkAndRecord(values: string[], room = 0): Promise<string[]> {
		const options = room > 0 && this.options.maxEntries ? { ...this.options, maxEntries: this.options.maxEntries + room } : this.options;
		for (let attempt = 1; ; attempt++) {
			try {
				const result = await this.ctx.helpers.checkProcessedAndRecord(values.map(stored), SCOPE, options);
				return result.processed.map((value) => String(value).slice(PREFIX.length));
			} catch (error) {
				if (attempt >= RECORD_ATTEMPTS) throw new NodeOperationError(this.ctx.getNode(), error as Error);
				await sleep(50 * attempt + Math.random() * 50);
			}
		}
	}

	async forget(keys: string[]): Promise<void> {
		if (keys.length === 0) return;
		await this.serialized(() => this.ctx.helpers.removeProcessed(keys.map(stored), SCOPE, this.options));
	}

	/** Forgets every key of the workflow's record; says how many there were. */
	async forgetAll(): Promise<number> {
		return await this.serialized(async () => {
			const count = await this.ctx.helpers.getProcessedDataCount(SCOPE, this.options);
			await this.ctx.helpers.clearAllProcessedItems(SCOPE, this.options);
			return count;
		});
	}

	/**
	 * n8n's store reads the record, then writes it back, with no lock: two executions of one
	 * workflow recording at the same moment could both find a key new. Within one n8n process
	 * (regular mode, or one queue-mode worker) the calls for a workflow go one at a time.
	 */
	private serialized<T>(task: () => Promise<T>): Promise<T> {
		const previous = queues.get(this.workflowId) ?? Promise.resolve();
		const run = previous.then(task, task);
		const settled = run.then(
			() => undefined,
			() => undefined,
		);
		queues.set(this.workflowId, settled);
		void settled.then(() => {
			if (queues.get(this.workflowId) === settled) queues.delete(this.workflowId);
		});
		return run;
	}
}

const SCOPE = 'workflow';
const RECORD_ATTEMPTS = 3;
/** The shortest pause before the markers are looked up again (see claim). */
const SETTLE_MS = 20;
/** How many times a block overwritten by concurrent writes is recorded and looked up again. */
const LOOKUPS = 5;
const MARKER = '\u0000run:';
const PREFIX = 'template-message:';
const queues = new Map<string, Promise<void>>();

function stored(key: string): string {
	return PREFIX + key;
}
