import type { MessageRecord } from './messageRecord';

/**
 * Records the keys of a run's messages in the workflow's record just before they are sent, a
 * block at a time: the first sender of a block records the whole block in one call, the others
 * wait for it. A block is as large as the number of senders, so at any moment at most about that
 * many messages are recorded but not yet sent, and a run of N messages makes about
 * N / block size calls to n8n's store (which rewrites its whole record on every call).
 */
export class Claims {
	/** The items to send, in the order the senders take them. */
	private readonly order: number[];

	private readonly positions = new Map<number, number>();

	private readonly blocks = new Map<number, Promise<Map<string, Claim>>>();

	/** Items this run recorded; their keys are forgotten again unless the message may have gone out. */
	private readonly recorded = new Set<number>();

	private readonly mayHaveGone = new Set<number>();

	constructor(
		private readonly record: MessageRecord,
		private readonly keys: Map<number, string>,
		private readonly blockSize: number,
	) {
		this.order = [...keys.keys()].sort((a, b) => a - b);
		this.order.forEach((itemIndex, position) => this.positions.set(itemIndex, position));
	}

	/** Whether this run may send the message, or which other execution has it. */
	async claim(itemIndex: number): Promise<Claim> {
		const position = this.positions.get(itemIndex);
		if (position === undefined) return 'send';
		const block = Math.floor(position / this.blockSize);
		let recording = this.blocks.get(block);
		if (!recording) {
			recording = this.recordBlock(block);
			this.blocks.set(block, recording);
		}
		return (await recording).get(this.keys.get(itemIndex)!) ?? 'send';
	}

	/** A request for the message is about to leave: from now on it may reach the recipient. */
	departing(itemIndex: number): void {
		this.mayHaveGone.add(itemIndex);
	}

	/** The API surely did not take the message: its key may be forgotten, so a later run sends it. */
	refused(itemIndex: number): void {
		this.mayHaveGone.delete(itemIndex);
	}

	/**
	 * At the end of the run: records once more, in one call, the keys of the messages that may have
	 * gone out (queue-mode workers writing the record at the same moment can overwrite each other's
	 * keys), then forgets those of the messages that surely did not.
	 */
	async release(): Promise<void> {
		await Promise.allSettled(this.blocks.values());
		const keysOf = (items: number[]) => items.map((itemIndex) => this.keys.get(itemIndex)!);
		const recorded = [...this.recorded];
		await this.record.recordNew(keysOf(recorded.filter((itemIndex) => this.mayHaveGone.has(itemIndex))));
		await this.record.forget(keysOf(recorded.filter((itemIndex) => !this.mayHaveGone.has(itemIndex))));
	}

	private async recordBlock(block: number): Promise<Map<string, Claim>> {
		const items = this.order.slice(block * this.blockSize, (block + 1) * this.blockSize);
		const { recordedBefore, raced } = await this.record.claim(items.map((itemIndex) => this.keys.get(itemIndex)!));
		const others = new Map<string, Claim>();
		for (const key of recordedBefore) others.set(key, 'recordedBefore');
		for (const key of raced) others.set(key, 'raced');
		for (const itemIndex of items) if (!others.has(this.keys.get(itemIndex)!)) this.recorded.add(itemIndex);
		return others;
	}
}

/** 'send': this run recorded the message; 'recordedBefore': an earlier execution did; 'raced': another execution recorded it at the same moment. */
export type Claim = 'send' | 'recordedBefore' | 'raced';
