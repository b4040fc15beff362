import type { Clock } from '../../nodes/TemplateMessage/send/flowControl';

/**
 * A clock whose time moves only when everything that runs on it is waiting: `run` lets the work
 * go on until every promise is waiting for a timer, moves the time to the earliest one and wakes
 * it. Timing scenarios of minutes run in milliseconds and give the same answer every time.
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
			if (signal?.aborted) return reject(new Error('aborted'));
			this.timers.push({ at: this.time + Math.max(0, ms), order: this.order++, wake: resolve });
		});

	/** Runs `work` to its end on this clock; fails if it waits for something no timer will bring. */
	async run<T>(work: Promise<T>): Promise<T> {
		let settled = false;
		const done = work.finally(() => {
			settled = true;
		});
		done.catch(() => undefined);
		for (;;) {
			await new Promise((resolve) => setImmediate(resolve));
			if (settled) return await work;
			if (this.timers.length === 0) throw new Error('The work waits for something that never comes: no timer is set');
			this.timers.sort((a, b) => a.at - b.at || a.order - b.order);
			const next = this.timers[0].at;
			this.time = Math.max(this.time, next);
			while (this.timers.length > 0 && this.timers[0].at <= this.time) this.timers.shift()!.wake();
		}
	}
}
