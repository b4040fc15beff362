/**
 * Watches the flow control of the package the engine loaded (dist/, the same module instances the
 * node uses): which pacer each request left through, at what rate, each slot's wait as the pacer
 * computed it, and each wait the flow asked its clock for. What the engine tests check of timing,
 * without reading the wall clock: the timings themselves are on the simulated clock
 * (test/flow/flowControl.test.ts).
 */
import path from 'node:path';

import type { Clock } from '../../nodes/TemplateMessage/flow/flowControl';
import type { DepartureTry, Pacer } from '../../nodes/TemplateMessage/flow/pacer';
import { PACKAGE_ROOT } from './engine';

export interface Departure {
	pacer: Pacer;
	rate: number;
}

export interface PaceWatch {
	/** Each request that left, in order, with the pacer it left through and that pacer's rate then. */
	departures: Departure[];
	/** Each slot reserved, in order: the pacer and the wait it gave, in ms on its own clock. */
	reservations: Array<{ pacer: Pacer; waitMs: number }>;
	stop(): void;
}

/** A module of the built flow control, as the node loaded it. */
function built<T>(file: string): T {
	return require(path.join(PACKAGE_ROOT, 'dist', 'nodes', 'TemplateMessage', 'flow', file)) as T;
}

export function watchPace(): PaceWatch {
	const { Pacer: BuiltPacer } = built<{ Pacer: typeof Pacer }>('pacer.js');
	const departures: Departure[] = [];
	const reservations: PaceWatch['reservations'] = [];
	const { tryDepart, reserve } = BuiltPacer.prototype;
	BuiltPacer.prototype.tryDepart = function (this: Pacer): DepartureTry {
		const attempt = tryDepart.call(this);
		if ('left' in attempt) departures.push({ pacer: this, rate: this.currentRate });
		return attempt;
	};
	BuiltPacer.prototype.reserve = function (this: Pacer): number {
		const waitMs = reserve.call(this);
		reservations.push({ pacer: this, waitMs });
		return waitMs;
	};
	return {
		departures,
		reservations,
		stop: () => {
			BuiltPacer.prototype.tryDepart = tryDepart;
			BuiltPacer.prototype.reserve = reserve;
		},
	};
}

/** How many different pacers the requests left through. */
export const pacersUsed = (watch: PaceWatch): number => new Set(watch.departures.map((departure) => departure.pacer)).size;

/** Each wait the flow control asked the system clock for, in ms, while watched (it still waits). */
export function watchWaits(): { waits: number[]; stop(): void } {
	const { SYSTEM_CLOCK } = built<{ SYSTEM_CLOCK: Clock }>('flowControl.js');
	const waits: number[] = [];
	const { sleep } = SYSTEM_CLOCK;
	SYSTEM_CLOCK.sleep = async (ms, signal) => {
		waits.push(ms);
		return await sleep(ms, signal);
	};
	return { waits, stop: () => (SYSTEM_CLOCK.sleep = sleep) };
}
