import type { BlockClaim, MessageRecord, LeftForNextWrite } from './record';
import { steadyNow } from '../shared/steadyClock';

/**
 * 'send': this run recorded it (or sends one in doubt, when asked to); 'sentBefore': an earlier execution recorded
 * it and the API took it; 'inDoubt': one recorded it and never learnt whether the API took it; 'raced': another
 * execution recorded it at the same moment; 'overwritten': other executions' writes replaced this run's record of
 * it at every lookup (see MessageRecord.claim): not sent, and nothing of it left in the record as this run's.
 */
export type Claim = 'send' | 'sentBefore' | 'inDoubt' | 'raced' | 'overwritten';

export interface ClaimSizing {
	concurrency: number;
	/** Max Messages per Second; 0: unpaced, the blocks follow what the run sends. */
	maxPerSecond: number;
	sendInDoubt: boolean;
}

/**
 * Records a run's keys just before they are sent, a block at a time: the first sender to reach a block claims
 * all of it, the others wait, and the next block is claimed once senders are half way through this one, so the
 * record's calls and pauses stay off the send path. A block is about a second of sending (the pace, or the last
 * second's sends when unpaced; the concurrency at least), so a killed worker leaves about a second in doubt; and
 * at least 1/RECORD_SHARE of the record: the store rewrites the whole record on every call, so each message
 * recorded costs a bounded number of values written, however long the run.
 */
export class Claims {
	private readonly order: number[];
	private readonly positions = new Map<number, number>();
	private readonly blocks: Array<{ end: number; claim: Promise<BlockClaim> }> = [];
	/** Items this run recorded; their keys are forgotten again unless the message may have gone out. */
	private readonly recorded = new Set<number>();
	/** Items in doubt that this run sends again (Send Messages in Doubt). */
	private readonly resent = new Set<number>();
	private readonly mayHaveGone = new Set<number>();
	private readonly acceptedItems = new Set<number>();
	private readonly sentBefore = new Set<number>();
	private leftOver: LeftForNextWrite = { moveToNewest: [], dropMarks: [] };
	/** Keys sent before that an earlier write moved to the newest end: their marks can go. */
	private movedToNewest: string[] = [];
	/** Each block's claim runs after the one before: what is left over goes with the block that carries it. */
	private chain: Promise<unknown> = Promise.resolve();
	private readonly departures: number[] = [];
	private recordSize = 0;

	constructor(
		private readonly record: MessageRecord,
		private readonly keys: Map<number, string>,
		private readonly sizing: ClaimSizing,
		private readonly now: () => number = steadyNow,
	) {
		this.order = [...keys.keys()].sort((a, b) => a - b);
		this.order.forEach((itemIndex, position) => this.positions.set(itemIndex, position));
		if (this.order.length > sizing.concurrency) {
			this.chain = record.size().then((size) => void (this.recordSize = size)).catch(() => undefined);
		}
	}

	async claim(itemIndex: number): Promise<Claim> {
		const position = this.positions.get(itemIndex);
		if (position === undefined) return 'send';
		while (this.claimedUpTo() <= position) this.claimNextBlock();
		const blockIndex = this.blocks.findIndex((block) => position < block.end);
		const blockStart = blockIndex === 0 ? 0 : this.blocks[blockIndex - 1].end;
		const halfWay = position >= (blockStart + this.blocks[blockIndex].end) / 2;
		if (blockIndex === this.blocks.length - 1 && halfWay && this.claimedUpTo() < this.order.length) this.claimNextBlock();

		const found = await this.blocks[blockIndex].claim;
		const key = this.keys.get(itemIndex)!;
		if (found.raced.has(key)) return 'raced';
		if (found.overwritten.has(key)) return 'overwritten';
		if (found.sentBefore.has(key)) return 'sentBefore';
		if (found.inDoubt.has(key)) return this.sizing.sendInDoubt ? 'send' : 'inDoubt';
		return 'send';
	}

	/** A request for the message is about to leave: from now on it may reach the recipient. */
	departing(itemIndex: number): void {
		this.mayHaveGone.add(itemIndex);
		this.departures.push(this.now());
	}

	/** The API surely did not take the message: its key may be forgotten, so a later run sends it. */
	refused(itemIndex: number): void {
		this.mayHaveGone.delete(itemIndex);
	}

	accepted(itemIndex: number): void {
		const key = this.keys.get(itemIndex);
		if (key === undefined) return;
		this.acceptedItems.add(itemIndex);
		this.leftOver.dropMarks.push(key);
	}

	/** At the end of the run (see MessageRecord.settleRun). */
	async release(): Promise<{ pushedOut: number }> {
		await Promise.allSettled(this.blocks.map((block) => block.claim));
		const keysOf = (items: Iterable<number>) => [...items].map((itemIndex) => this.keys.get(itemIndex)!);
		const recorded = [...this.recorded];
		const gone = recorded.filter((itemIndex) => this.mayHaveGone.has(itemIndex));
		// settleRun removes marks last, after the keys moved to the newest end are back.
		const leftOver = this.takeLeftOver();
		leftOver.dropMarks.push(...this.movedToNewest.splice(0), ...leftOver.moveToNewest);
		return await this.record.settleRun({
			forget: keysOf(recorded.filter((itemIndex) => !this.mayHaveGone.has(itemIndex))),
			keep: keysOf([...gone, ...this.sentBefore]),
			inDoubt: keysOf([...gone, ...this.resent].filter((itemIndex) => !this.acceptedItems.has(itemIndex))),
			leftOver,
		});
	}

	private claimedUpTo(): number {
		return this.blocks.at(-1)?.end ?? 0;
	}

	private claimNextBlock(): void {
		const start = this.claimedUpTo();
		const items = this.order.slice(start, start + this.nextBlockSize());
		const keys = items.map((itemIndex) => this.keys.get(itemIndex)!);
		const claim = this.chain.then(async () => {
			const leftOver = this.takeLeftOver();
			leftOver.dropMarks.push(...this.movedToNewest.splice(0));
			let found: BlockClaim | undefined;
			try {
				found = await this.record.claim(keys, leftOver);
			} finally {
				if (!found) {
					// Left for the next write: a key half moved keeps its mark, so it reads in doubt meanwhile.
					this.leftOver.moveToNewest.push(...leftOver.moveToNewest);
					this.leftOver.dropMarks.push(...leftOver.dropMarks);
				}
			}
			// Known back in the record: their marks can go. Not known: moved again by the next write, marks kept.
			if (found.movesStood) this.movedToNewest.push(...leftOver.moveToNewest);
			else this.leftOver.moveToNewest.push(...leftOver.moveToNewest);
			// Each key went in with its pending mark.
			this.recordSize += 2 * keys.length;
			for (const itemIndex of items) this.classify(itemIndex, found);
			return found;
		});
		// A block claimed ahead may be reached by no sender (the run stopped): this catch keeps its failure handled.
		this.chain = claim.catch(() => undefined);
		this.blocks.push({ end: start + items.length, claim });
	}

	private classify(itemIndex: number, found: BlockClaim): void {
		const key = this.keys.get(itemIndex)!;
		if (found.raced.has(key) || found.overwritten.has(key)) return;
		if (found.sentBefore.has(key)) {
			this.sentBefore.add(itemIndex);
			if (found.movedByOther.has(key)) return;
			// Its mark, made by this claim, goes in the write after the one moving the key to the newest end;
			// when that mark is not known to stand, the key stays where it is and only the mark goes.
			if (found.movesStood) this.leftOver.moveToNewest.push(key);
			else this.leftOver.dropMarks.push(key);
		} else if (found.inDoubt.has(key)) {
			// Its mark alone says it is in doubt: both stay where they are.
			if (this.sizing.sendInDoubt) this.resent.add(itemIndex);
		} else this.recorded.add(itemIndex);
	}

	private takeLeftOver(): LeftForNextWrite {
		const leftOver = this.leftOver;
		this.leftOver = { moveToNewest: [], dropMarks: [] };
		return leftOver;
	}

	private nextBlockSize(): number {
		const now = this.now();
		while (this.departures.length > 0 && this.departures[0] < now - 1000) this.departures.shift();
		const perSecond = this.sizing.maxPerSecond > 0 ? Math.ceil(this.sizing.maxPerSecond) : this.departures.length;
		return Math.max(1, this.sizing.concurrency, perSecond, Math.ceil(this.recordSize / RECORD_SHARE));
	}
}

/** A block is at least this share of the record (see Claims). */
const RECORD_SHARE = 32;
