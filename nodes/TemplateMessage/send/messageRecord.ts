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

	/**
	 * Records the keys; returns those that were recorded already (by an earlier execution). Tried
	 * again after a failure: two queue-mode workers creating the workflow's record at the same moment
	 * make one insert fail, and nothing was written by the failed call.
	 */
	async recordNew(keys: string[]): Promise<Set<string>> {
		if (keys.length === 0) return new Set();
		for (let attempt = 1; ; attempt++) {
			try {
				const result = await this.serialized(() => this.ctx.helpers.checkProcessedAndRecord(keys.map(stored), SCOPE, this.options));
				return new Set(result.processed.map((value) => String(value).slice(PREFIX.length)));
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
const PREFIX = 'template-message:';
const queues = new Map<string, Promise<void>>();

function stored(key: string): string {
	return PREFIX + key;
}
