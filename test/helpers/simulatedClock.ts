import type { Clock } from '../../nodes/TemplateMessage/flow/flowControl';

/** More timer wake-ups than any scenario needs: a run that gets this far is looping, not waiting. */
const MAX_WAKE_UPS = 1_000_000;

/**
 * A clock whose time moves only when everything that runs on it is waiting: `run` lets the work
 * go on until every promise is waiting for a timer, moves the time to the earliest one and wakes
 * it, one timer at a time, each one's continuations run to their end before the next wakes (as
 * Node's own timers do). Timing scenarios of minutes run in milliseconds and give the same answer
 * every time.
 */
export class SimulatedClock implements Clock {
	private time: number;

	private readonly timers: Array<{ at: number; order: number; wake: () => void }> = [];

	private order = 0;

	constructor(start = Date.UTC(2026, 10, 25, 9, 0, 0)) {
		this.time = start;
	}

	readonly now = (): number => this.time;

	readonly sleep = async (ms: number, signal?: AbortSignal): Promise<void> =>
		await new Promise<void>((resolve, reject) => {
			const aborted = () => new Error('aborted');
			if (signal?.aborted) return reject(aborted());
			const onAbort = () => {
				const index = this.timers.indexOf(timer);
				if (index !== -1) this.timers.splice(index, 1);
				reject(aborted());
			};
			// A timer that wakes lets go of the signal, as n8n's sleep does: a run's sleeps do not pile up listeners on it.
			const wake = () => {
				signal?.removeEventListener('abort', onAbort);
				resolve();
			};
			const timer = { at: this.time + Math.max(0, ms), order: this.order++, wake };
			this.timers.push(timer);
			signal?.addEventListener('abort', onAbort, { once: true });
		});

	/** Runs `work` to its end on this clock; fails if it waits for something no timer will bring. */
	async run<T>(work: Promise<T>): Promise<T> {
		let settled = false;
		const done = work.finally(() => {
			settled = true;
		});
		done.catch(() => undefined);
		for (let wakeUps = 0; ; wakeUps++) {
			await new Promise((resolve) => setImmediate(resolve));
			if (settled) return await work;
			if (this.timers.length === 0) throw new Error('The work waits for something that never comes: no timer is set');
			if (wakeUps > MAX_WAKE_UPS) throw new Error(`The work is still running after ${MAX_WAKE_UPS} timers`);
			this.timers.sort((a, b) => a.at - b.at || a.order - b.order);
			const next = this.timers.shift()!;
			this.time = Math.max(this.time, next.at);
			next.wake();
		}
	}
}
