import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { abortableSleep } from '../shared/abortableSleep';
import { FIELD } from '../shared/fieldNames';
import type { ForgetTries } from './forgetTries';
import { steadyNow } from '../shared/steadyClock';

/**
 * The record of messages sent by earlier executions, in the deduplication store n8n gives nodes (as Remove Duplicates):
 * it survives restarts, is shared by queue-mode workers and belongs to the workflow, so Forget Sent Messages
 * reaches it. PREFIX keeps its values apart from a Remove Duplicates node's.
 * A message's key: it may have reached its recipient. The key's pending mark: not yet known taken by the API;
 * it goes once the API accepted, and a refusal removes key and mark in one write. A mark that stays means in
 * doubt: its execution was killed, crashed, was cancelled mid-request, got no readable answer, or is sending it now.
 * The store keeps md5 hashes in one row per workflow, read and written whole by every call: it tells whether
 * it holds a value, never what it holds, and each write is all or nothing.
 */
export class MessageRecord {
	/** Tells this run's block markers from any other run's (see claim). */
	private readonly runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
	private markers = 0;
	/** The keys this run recorded (see heldMarks). */
	private readonly marksHeld: string[] = [];
	/** How another run of this process sees this one, holding marks (see claim). */
	private readonly run: HoldingRun;
	private markSettled: () => void = ignore;

	private constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly workflowId: string,
		/** Max Messages Remembered: applied when a run settles. */
		private readonly maxEntries: number | undefined,
	) {
		const settled = new Promise<void>((resolve) => (this.markSettled = resolve));
		this.run = { stopping: () => ctx.getExecutionCancelSignal?.()?.aborted === true, settled };
	}

	static open(ctx: IExecuteFunctions, maxEntries?: number): MessageRecord {
		const node = ctx.getNode();
		if (typeof ctx.helpers.checkProcessedAndRecord !== 'function' || typeof ctx.helpers.removeProcessed !== 'function') {
			throw new NodeOperationError(node, `This n8n does not give nodes its deduplication store, which ${FIELD.sendOnce} needs`, {
				description: `Update n8n (1.78 and later have it), or set ${FIELD.sendOnce} to Off.`,
			});
		}
		const workflowId = ctx.getWorkflow().id;
		if (!workflowId) {
			throw new NodeOperationError(node, `${FIELD.sendOnce} needs a saved workflow: this one has no id yet`, {
				description: 'n8n keeps the record of sent messages per workflow. Save the workflow, then run it again.',
			});
		}
		return new MessageRecord(ctx, String(workflowId), maxEntries);
	}

	async size(): Promise<number> {
		return await this.retried(() => this.ctx.helpers.getProcessedDataCount(SCOPE, ENTRIES));
	}

	/**
	 * Does what earlier blocks left (see LeftForNextWrite), records the keys about to be sent, each with its pending
	 * mark, and tells what others left: settled (`sentBefore`), marked (`inDoubt`), recorded by another
	 * execution at the same moment (`raced`), or written over at every lookup (`overwritten`: not sent). The
	 * rest are this run's to send.
	 * The store reads, then writes back the record with no lock: two queue-mode workers can both find a key
	 * new, the later write replacing the earlier. So the block goes in with a marker of this run and, after a
	 * pause longer than a store call, is looked up again. Marker there: this write stands (the row is written
	 * whole). Marker gone, key there: another execution recorded it at the same moment: left to it.
	 * Both gone: a write about other keys replaced this one; the lookup recorded them again, so look once more.
	 * The last lookup writes none of the block's keys, only the marker (and the moves below): found gone there, no
	 * write of this block stood, and none of its keys is left in the record as this run's (a key there now is
	 * another execution's, and stays).
	 * Keys moved to the newest end are in every lookup too, and the marks this claim made on keys sent before
	 * (they cover those keys' move by the next write): a write read between this claim's removal and its record
	 * would leave the moved keys out, one read before it the marks, and neither may then go (`movesStood`).
	 * A key sent before whose mark another run of this process holds is that run's to move (`movedByOther`).
	 */
	async claim(keys: string[], leftOver: LeftForNextWrite, afterStoppedRuns = false): Promise<BlockClaim> {
		const claim: BlockClaim = { sentBefore: new Set(), inDoubt: new Set(), raced: new Set(), overwritten: new Set(), movedByOther: new Set(), movesStood: true };
		const movingNext: string[] = [];
		// Keys whose marks a cancelled run of this process holds: it sends nothing more, and its settle forgets them or keeps them in doubt.
		const heldByStoppedRun = new Map<string, Promise<void>>();
		const marker = `${MARKER}${this.runId}:${this.markers++}`;
		const { found, pauseMs } = await this.serialized(async () => {
			// Timed from here: a wait for this process's other calls is not a slow store.
			const started = steadyNow();
			// Read inside the serialized call: a run settling before it may drop the workflow's map, and a
			// hold set on a dropped map would leave its mark looking like no one's (in doubt) to the next claim.
			const held = heldMarks(this.workflowId);
			await this.remove([...leftOver.moveToNewest, ...leftOver.dropMarks.map(pending)]);
			const recorded = new Set(await this.record([...leftOver.moveToNewest, ...keys, ...keys.map(pending), marker]));
			for (const key of keys) {
				const holder = held.get(key);
				if (recorded.has(pending(key))) {
					// A mark another run of this process holds: that run is sending the message right now, or
					// found it sent before and is moving its key to the newest end (see LeftForNextWrite).
					if (!holder) claim.inDoubt.add(key);
					// Not when this run is cancelled too: it sends nothing more, and two would wait on each other.
					else if (!holder.sentBefore && holder.run.stopping() && !afterStoppedRuns && !this.run.stopping()) heldByStoppedRun.set(key, holder.run.settled);
					else if (!holder.sentBefore) claim.raced.add(key);
					else {
						claim.sentBefore.add(key);
						claim.movedByOther.add(key);
					}
					continue;
				}
				const sentBefore = recorded.has(key);
				if (sentBefore) {
					claim.sentBefore.add(key);
					movingNext.push(pending(key));
				}
				// This claim's write just marked the key (see LeftForNextWrite): until this run settles, the mark is its own.
				held.set(key, { runId: this.runId, sentBefore, run: this.run });
				this.marksHeld.push(key);
			}
			return { found: recorded, pauseMs: pauseAfter(steadyNow() - started) };
		});
		const moves = [...leftOver.moveToNewest, ...movingNext];
		claim.movesStood = moves.length === 0;
		let unconfirmed = keys.filter((key) => !found.has(key) && !found.has(pending(key)));
		for (let lookup = 1; unconfirmed.length > 0 || !claim.movesStood; lookup++) {
			await sleep(pauseMs);
			const last = lookup >= LOOKUPS;
			const again = new Set(await this.serialized(() => this.record([...(last ? [] : [...unconfirmed, ...unconfirmed.map(pending)]), ...moves, marker])));
			if (again.has(marker)) {
				claim.movesStood = true;
				break;
			}
			if (last) {
				// Overwritten on every lookup: not sent rather than perhaps sent twice.
				for (const key of unconfirmed.splice(0)) claim.overwritten.add(key);
				break;
			}
			for (const key of unconfirmed) if (again.has(key)) claim.raced.add(key);
			unconfirmed = unconfirmed.filter((key) => !again.has(key));
		}
		if (heldByStoppedRun.size > 0) await this.claimAfterStoppedRuns(heldByStoppedRun, claim);
		return claim;
	}

	/**
	 * Waits for the cancelled runs to settle (within STOPPED_RUN_WAIT_MS), then claims their keys again: forgotten,
	 * this run sends them; kept, they are in doubt. Still held then, they are left to those runs (`raced`).
	 */
	private async claimAfterStoppedRuns(heldByStoppedRun: Map<string, Promise<void>>, claim: BlockClaim): Promise<void> {
		let settled = false;
		const stoppedRuns = Promise.all(new Set(heldByStoppedRun.values())).then(() => (settled = true));
		// In slices: n8n 1.78's sleep cannot be cut short, and this run may be cancelled meanwhile.
		for (let waited = 0; !settled && waited < STOPPED_RUN_WAIT_MS && !this.run.stopping(); waited += STOPPED_RUN_WAIT_SLICE_MS) {
			const slice = new AbortController();
			try {
				await Promise.race([stoppedRuns, abortableSleep(STOPPED_RUN_WAIT_SLICE_MS, slice.signal).catch(ignore)]);
			} finally {
				slice.abort();
			}
		}
		const again = await this.claim([...heldByStoppedRun.keys()], { moveToNewest: [], dropMarks: [] }, true);
		for (const name of ['sentBefore', 'inDoubt', 'raced', 'overwritten', 'movedByOther'] as const) for (const key of again[name]) claim[name].add(key);
		claim.movesStood &&= again.movesStood;
	}

	/**
	 * 1: forget the keys that surely did not go out (each with its mark), the run's markers, marks to drop and
	 * the keys to move to the newest end. 2: record again keys that may have gone out or were sent before
	 * (another worker's write may have replaced them), marks still in doubt and the moved keys at the newest
	 * end; only then keep to Max Messages Remembered, oldest first. 3: drop the moved keys' marks, once write 2
	 * is known to have stood: another worker's write, read between 1 and 2, would leave the moved keys out, and
	 * dropping their marks then would leave neither (sent again by the next run). So write 2 carries a marker,
	 * looked up as a claim's is (see stood); never found, the marks stay: in doubt.
	 * A crash between writes leaves marks, never a key without its mark: in doubt, never sent twice.
	 */
	async settleRun({ forget, keep, inDoubt, leftOver }: { forget: string[]; keep: string[]; inDoubt: string[]; leftOver: LeftForNextWrite }): Promise<{ pushedOut: number }> {
		const moving = new Set(leftOver.moveToNewest);
		const marksLeft = leftOver.dropMarks.filter((key) => moving.has(key));
		const settledNow = leftOver.dropMarks.filter((key) => !moving.has(key));
		const markers = Array.from({ length: this.markers }, (_, block) => `${MARKER}${this.runId}:${block}`);
		const marker = marksLeft.length > 0 ? `${MARKER}${this.runId}:settle` : undefined;
		try {
			const { pushedOut, pauseMs } = await this.serialized(async () => {
				await this.remove([...markers, ...forget, ...forget.map(pending), ...leftOver.moveToNewest, ...settledNow.map(pending)]);
				const toRecord = [...new Set([...leftOver.moveToNewest, ...keep, ...inDoubt.map(pending)]), ...(marker === undefined ? [] : [marker])];
				if (toRecord.length === 0) return { pushedOut: 0, pauseMs: 0 };
				// Room for the marks that go right after (and the marker), so that they push out no key.
				const limit = this.maxEntries === undefined ? undefined : this.maxEntries + marksLeft.length + (marker === undefined ? 0 : 1);
				const before = await this.size();
				const started = steadyNow();
				const added = toRecord.length - (await this.record(toRecord, limit)).length;
				return { pushedOut: limit === undefined ? 0 : Math.max(0, before + added - limit), pauseMs: pauseAfter(steadyNow() - started) };
			});
			// Only the marks covering a move are this run's while it looks the move up.
			await this.serialized(async () => this.releaseHeldMarks(moving));
			const moved = marker === undefined || (await this.stood(marker, leftOver.moveToNewest, pauseMs));
			await this.serialized(() => this.remove([...(moved ? marksLeft.map(pending) : []), ...(marker === undefined ? [] : [marker])]));
			return { pushedOut };
		} finally {
			await this.serialized(async () => this.releaseHeldMarks());
			this.markSettled();
		}
	}

	/** This run's marks, but those of `kept` keys, are no longer held (see heldMarks): a mark left now is in doubt. */
	private releaseHeldMarks(kept: ReadonlySet<string> = new Set()): void {
		const held = heldMarks(this.workflowId);
		const released = this.marksHeld.filter((key) => !kept.has(key));
		this.marksHeld.splice(0, this.marksHeld.length, ...this.marksHeld.filter((key) => kept.has(key)));
		for (const key of released) if (held.get(key)?.runId === this.runId) held.delete(key);
		if (held.size === 0) heldMarksByWorkflow.delete(this.workflowId);
	}

	/**
	 * After each pause, records `values` again with `marker`: found there, the write before stood (a write read
	 * before it has landed by then), so `values` are in the record.
	 */
	private async stood(marker: string, values: string[], pauseMs: number): Promise<boolean> {
		for (let lookup = 1; lookup <= LOOKUPS; lookup++) {
			await sleep(pauseMs);
			if ((await this.serialized(() => this.record([...values, marker]))).includes(marker)) return true;
		}
		return false;
	}

	/**
	 * Forgets each key and its pending mark; returns the keys the record held, and those left as they are
	 * because a run of this process holds their marks (`busy`: sending the message now, or moving its key as
	 * sent before): taken out, a run beside it would send the message too, or its settle would record the key
	 * again. n8n's store has no read alone: recording the values tells which were there, and the removal then
	 * takes them all out. `tries`: what earlier tries of this run did (see ForgetTries).
	 */
	async forget(keys: string[], tries: ForgetTries): Promise<{ held: Set<string>; busy: Set<string> }> {
		const unique = [...new Set(keys)];
		return await this.serialized(async () => {
			const running = heldMarksByWorkflow.get(this.workflowId);
			const busy = new Set(unique.filter((key) => running?.has(key)));
			const free = unique.filter((key) => !busy.has(key));
			const fresh = free.filter((key) => tries.recall(key) === undefined);
			const held = new Set(await this.record([...fresh, ...fresh.map(pending)]));
			for (const key of fresh) tries.found(key, held.has(key) || held.has(pending(key)));
			const left = free.filter((key) => tries.recall(key)?.removed !== true);
			await this.remove([...left, ...left.map(pending)]);
			tries.removed(left);
			return { held: new Set(free.filter((key) => tries.recall(key)?.held === true)), busy };
		});
	}

	/**
	 * Clears the record: how many values it held. Not while a run of this process holds marks in it (`heldByRuns`,
	 * nothing cleared): the clear would take its keys and its claims' markers too, and that run could then
	 * send a message twice, or leave it in doubt unsent (see forget).
	 */
	async forgetAll(): Promise<{ count: number; heldByRuns: number }> {
		return await this.serialized(async () => {
			const heldByRuns = heldMarksByWorkflow.get(this.workflowId)?.size ?? 0;
			if (heldByRuns > 0) return { count: 0, heldByRuns };
			const count = await this.size();
			await this.ctx.helpers.clearAllProcessedItems(SCOPE, ENTRIES);
			return { count, heldByRuns };
		});
	}

	/** Returns the values recorded already. Kept to size only in settleRun: a run must not push out keys it has yet to look up. */
	private async record(values: string[], maxEntries?: number): Promise<string[]> {
		if (values.length === 0) return [];
		const options: ICheckProcessedOptions = maxEntries === undefined ? ENTRIES : { ...ENTRIES, maxEntries };
		const result = await this.retried(() => this.ctx.helpers.checkProcessedAndRecord(values.map(stored), SCOPE, options));
		return result.processed.map((value) => String(value).slice(PREFIX.length));
	}

	private async remove(values: string[]): Promise<void> {
		if (values.length > 0) await this.retried(() => this.ctx.helpers.removeProcessed(values.map(stored), SCOPE, ENTRIES));
	}

	/** Two workers creating the workflow's record at the same moment make one insert fail; the failed call wrote nothing. */
	private async retried<T>(call: () => Promise<T>): Promise<T> {
		for (let attempt = 1; ; attempt++) {
			try {
				return await call();
			} catch (error) {
				if (attempt >= RECORD_ATTEMPTS) throw new NodeOperationError(this.ctx.getNode(), error as Error);
				await sleep(50 * attempt + Math.random() * 50);
			}
		}
	}

	// The store has no lock (see claim): within one n8n process (regular mode, or one queue-mode worker)
	// a workflow's calls go one at a time.
	private serialized<T>(task: () => Promise<T>): Promise<T> {
		const previous = queues.get(this.workflowId) ?? Promise.resolve();
		const run = previous.then(task, task);
		const settled = run.then(ignore, ignore);
		queues.set(this.workflowId, settled);
		void settled.then(() => {
			if (queues.get(this.workflowId) === settled) queues.delete(this.workflowId);
		});
		return run;
	}
}

/** What a block's claim found (see MessageRecord.claim); every other key is this run's to send. */
export interface BlockClaim {
	sentBefore: Set<string>;
	inDoubt: Set<string>;
	raced: Set<string>;
	overwritten: Set<string>;
	/** Sent before, and marked by another run of this process, which moves it to the newest end. */
	movedByOther: Set<string>;
	/** The keys this claim moved to the newest end, and its marks on keys sent before, are known in the record: the moved keys' marks may go. */
	movesStood: boolean;
}

/**
 * What a run's earlier blocks leave for a later write. `moveToNewest`: keys sent before and seen again, removed and
 * recorded again to move to the newest end (a key seen again is as recent as its last run); their marks, made by
 * the claim that saw them, stay meanwhile, so another execution finds them in doubt, never new. `dropMarks`: keys
 * whose marks can go (accepted by the API, or moved to the newest end by an earlier write).
 */
export interface LeftForNextWrite {
	moveToNewest: string[];
	dropMarks: string[];
}

const SCOPE = 'workflow';
const ENTRIES: ICheckProcessedOptions = { mode: 'entries' };
const RECORD_ATTEMPTS = 3;
/** The shortest pause before a block's marker is looked up again (see claim). */
const SETTLE_MS = 20;
/**
 * The slowest of this process's recent writes that are looked up again (claims, and settles moving
 * keys), this one's included. Another worker's write can land as late as its own claim is slow, and a machine starved of CPU slows every process's claims, not
 * each one alike: the pause follows the slow ones (four CPU-bound jobs beside two workers on two
 * cores sent 1 of 100 same-moment pairs twice when it followed this claim alone).
 */
function recentSlowestClaim(thisClaimMs: number): number {
	recentClaimsMs.push(thisClaimMs);
	if (recentClaimsMs.length > RECENT_CLAIMS) recentClaimsMs.shift();
	return Math.max(...recentClaimsMs);
}
const RECENT_CLAIMS = 20;
const recentClaimsMs: number[] = [];
/** The pause before a write that took `thisCallMs` is looked up again. */
function pauseAfter(thisCallMs: number): number {
	return Math.max(SETTLE_MS, 2 * recentSlowestClaim(thisCallMs));
}
/**
 * How many times a block overwritten by concurrent writes is looked up again. Eight queue-mode workers on one
 * workflow's record (2 CPUs) wrote over one claim at four lookups in a row, and over another's at five.
 */
export const LOOKUPS = 10;
const MARKER = '\u0000run:';
const PREFIX = 'template-message:';
const queues = new Map<string, Promise<void>>();
const heldMarksByWorkflow = new Map<string, Map<string, HeldMark>>();

interface HeldMark {
	runId: string;
	/** Found sent before: the mark only covers the key's move to the newest end. */
	sentBefore: boolean;
	run: HoldingRun;
}

interface HoldingRun {
	/** Its execution was cancelled: it sends nothing more. */
	stopping(): boolean;
	/** Its marks are released, its keys forgotten or kept. */
	settled: Promise<void>;
}

/** How long a claim waits for a cancelled run's settle (store calls of its own) before leaving its keys to it. */
const STOPPED_RUN_WAIT_MS = 60_000;
const STOPPED_RUN_WAIT_SLICE_MS = 1_000;
const ignore = (): undefined => undefined;

/**
 * The keys whose marks the runs of this n8n process hold, each with its run: their marks are no doubt.
 * A run holds a key's mark from its claim until it settles: while it sends the message, or, found sent
 * before, while it moves the key to the newest end.
 */
function heldMarks(workflowId: string): Map<string, HeldMark> {
	let held = heldMarksByWorkflow.get(workflowId);
	if (!held) heldMarksByWorkflow.set(workflowId, (held = new Map()));
	return held;
}

function stored(value: string): string {
	return PREFIX + value;
}

function pending(key: string): string {
	return `${key}\u0000pending`;
}
