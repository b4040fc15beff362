/**
 * When this pace's requests may have reached the API, which counts arrivals, not departures: each
 * departure, and how late it may have arrived, learned from its answer. n8n's helper connects after
 * the pacer counts a request: most arrive a little later, a process's first ones much later.
 */
import { ARRIVAL_ROOM_MS, RATE_LIMIT_WINDOW_MS } from '../shared/flowLimits';

/**
 * One request that left, on the pacer's clock, and how long its answer took (unknown until then).
 * How much longer than the fastest answer bounds how much later than the fastest request it reached
 * the API.
 */
export interface Departure {
	at: number;
	roundTripMs?: number;
	/** Answered 429: not counted as what this pace used of the window (a provider counts what it takes). */
	refused?: boolean;
}

/**
 * This pace's requests the API counted in its window at one arrival (those it refused left out):
 * `likely` as the record places each arrival; `most`, the most one window could hold, wherever this
 * request arrived between leaving and the record's place for it, each other one anywhere between
 * leaving and its own place. An answer that came back late (a busy event loop, not a late request)
 * places its request's arrival late, and `likely` then misses the requests at the window's start, or
 * ones that left just after it and arrived first. In the real n8n, two workers' answers undercounted
 * their own that way by up to five requests in one answer in five.
 */
export interface OwnInWindow {
	likely: number;
	most: number;
}

/** Answers remembered to learn from: the fastest of them is the yardstick of lateness. */
const ANSWERS_KEPT = 50;

/** Each 429 at a window's edge widens the room by this much, up to ROOM_LEARNED_MAX_MS. */
const ROOM_STEP_MS = 2;
const ROOM_LEARNED_MAX_MS = 50;

/** Enough for any window at any rate the options allow, without growing for ever without a limit. */
const DEPARTURES_KEPT = 4096;

export class ArrivalRecord {
	/** Requests that left in the last few seconds, oldest first. */
	private readonly departures: Departure[] = [];
	private readonly roundTrips: number[] = [];
	private fastestMs = 0;
	/** Room added by 429s at a window's edge: the record was too hopeful by about this much. */
	private learnedRoomMs = 0;

	/** The room kept past one second between arrivals a limit apart, in ms. */
	get roomMs(): number {
		return ARRIVAL_ROOM_MS + this.learnedRoomMs;
	}

	depart(now: number): Departure {
		this.forget(now);
		const departure = { at: now };
		this.departures.push(departure);
		return departure;
	}

	/**
	 * A request's answer came `roundTripMs` after it left: how late it may have arrived is learned from
	 * it, against the fastest answer yet (a process's first request is slow and answered first).
	 */
	answered(departure: Departure, roundTripMs: number): void {
		departure.roundTripMs = Math.max(0, roundTripMs);
		this.roundTrips.push(departure.roundTripMs);
		if (this.roundTrips.length > ANSWERS_KEPT) this.roundTrips.shift();
		this.fastestMs = Math.min(...this.roundTrips);
	}

	/** A request the API refused, and whose slot this pace does not keep. */
	drop(departure: Departure): void {
		const index = this.departures.indexOf(departure);
		if (index >= 0) this.departures.splice(index, 1);
	}

	/** A 429 at the window's edge: the record was too hopeful. */
	widenRoom(): void {
		this.learnedRoomMs = Math.min(ROOM_LEARNED_MAX_MS, this.learnedRoomMs + ROOM_STEP_MS);
	}

	/** When one more may arrive with no more than `perWindow` of the record's arrivals in any second and the room. */
	slotFreesAt(now: number, perWindow: number): number {
		this.forget(now);
		const window = RATE_LIMIT_WINDOW_MS + this.roomMs;
		const arrivals = this.departures.map((departure) => this.arrivalOf(departure)).filter((at) => at > now - window);
		if (arrivals.length < perWindow) return now;
		arrivals.sort((a, b) => a - b);
		return arrivals[arrivals.length - perWindow] + window;
	}

	/** How many of this pace's requests the API had in the window that ends with `departure`'s arrival, itself included. */
	arrivalsBefore(departure: Departure): number {
		return this.countBefore(departure, false);
	}

	/**
	 * How many of this pace's requests the API counted in the window that ended with `departure`'s
	 * arrival, those it refused left out (see OwnInWindow).
	 */
	countedInWindowOf(departure: Departure): OwnInWindow {
		const latest = this.arrivalOf(departure);
		const counted = this.departures.filter((other) => !other.refused);
		const left = counted.map((other) => other.at).sort((x, y) => x - y);
		const arrived = counted.map((other) => this.arrivalOf(other)).sort((x, y) => x - y);
		// A window ending at `end` holds every request that may have arrived in it: left by then, and not
		// surely arrived a window before. The end is where this request arrived, anywhere from leaving to
		// the record's place for it; the count is largest where one more has come in.
		const inWindowEndingAt = (end: number) => countAtMost(left, end) - countAtMost(arrived, end - RATE_LIMIT_WINDOW_MS);
		const ends = [departure.at, ...left.filter((at) => at > departure.at && at <= latest)];
		return { likely: this.countBefore(departure, true), most: Math.max(...ends.map(inWindowEndingAt)) };
	}

	private countBefore(departure: Departure, counted: boolean): number {
		const arrived = this.arrivalOf(departure);
		// Requests that arrived in the same millisecond: the API counted them in the order they left.
		const order = this.departures.indexOf(departure);
		return this.departures.filter((other, index) => {
			if (counted && other.refused) return false;
			const at = this.arrivalOf(other);
			return (at < arrived || (at === arrived && index <= order)) && at > arrived - RATE_LIMIT_WINDOW_MS;
		}).length;
	}

	/** When the API may have had it, as far as the record knows: an unanswered request is as late as most. */
	private arrivalOf(departure: Departure): number {
		const late = departure.roundTripMs === undefined ? this.usualLateness() : departure.roundTripMs - this.fastestMs;
		return departure.at + Math.min(late, RATE_LIMIT_WINDOW_MS);
	}

	/** The 9th-tenth lateness of the last answers (0 before any). */
	private usualLateness(): number {
		if (this.roundTrips.length === 0) return 0;
		const sorted = [...this.roundTrips].sort((a, b) => a - b);
		return sorted[Math.floor(0.9 * (sorted.length - 1))] - this.fastestMs;
	}

	private forget(now: number): void {
		const horizon = now - 3 * (RATE_LIMIT_WINDOW_MS + ROOM_LEARNED_MAX_MS + ARRIVAL_ROOM_MS);
		while (this.departures.length > 0 && (this.departures[0].at < horizon || this.departures.length > DEPARTURES_KEPT)) this.departures.shift();
	}
}

/** How many of `sorted` (ascending) are at most `value`. */
function countAtMost(sorted: number[], value: number): number {
	let low = 0;
	let high = sorted.length;
	while (low < high) {
		const middle = (low + high) >> 1;
		if (sorted[middle] <= value) low = middle + 1;
		else high = middle;
	}
	return low;
}
