/**
 * Get Status's Wait Until on a simulated clock: rows asked again, spaced out, until they reach the
 * status waited for, a final one, or the limit; within the pace; stopped at once by a cancel. Exact
 * figures, every time: the clock moves only when every lookup waits.
 */
import type { INode } from 'n8n-workflow';

import { statusSummary } from '../../nodes/TemplateMessage/output/statusRows';
import { Redactor } from '../../nodes/TemplateMessage/api/redact';
import { FlowControl } from '../../nodes/TemplateMessage/flow/flowControl';
import { askAgainAfterMs, lookEach } from '../../nodes/TemplateMessage/lookup/lookupAll';
import { classifyResponse } from '../../nodes/TemplateMessage/api/outcome';
import { Pacer } from '../../nodes/TemplateMessage/flow/pacer';
import type { StatusAttempt } from '../../nodes/TemplateMessage/api/transport';
import { readOptions } from '../../nodes/TemplateMessage/shared/options';
import { fieldError } from '../../nodes/TemplateMessage/shared/optionSpec';
import type { StatusResult } from '../../nodes/TemplateMessage/shared/status';
import type { WaitSettings } from '../../nodes/TemplateMessage/shared/statusOptions';
import { readStatusOptions } from '../../nodes/TemplateMessage/shared/statusOptions';
import { SimulatedClock } from '../helpers/simulatedClock';

const NODE: INode = { id: 'sim', name: 'Template Message', type: 'templateMessage', typeVersion: 2, position: [0, 0], parameters: {} };
const MINUTE = 60_000;
/** The answers here hold no token: the summary names their words as they came. */
const NO_TOKEN_IN_ANSWERS = new Redactor('a-token-no-answer-here-holds');

/** A message's status at `ms` after the run started. */
type Lifecycle = (ms: number) => { status: string; code?: number } | 'notFound' | 'unavailable' | 'noStatus' | { tooManyRequests: number };

const delivered = (atMs: number, readAtMs = Infinity): Lifecycle => (ms) => ({ status: ms >= readAtMs ? 'read' : ms >= atMs ? 'delivered' : 'submitted' });
const rejectedAt = (atMs: number): Lifecycle => (ms) => (ms >= atMs ? { status: 'rejected', code: 1340 } : { status: 'submitted' });

async function simulateLookups({ lifecycles, wait, maxPerSecond = 25, cancelAt, latencyMs = 20, maxThrottleWait }: { lifecycles: Lifecycle[]; wait?: WaitSettings; maxPerSecond?: number; cancelAt?: number; latencyMs?: number; maxThrottleWait?: number }) {
	const clock = new SimulatedClock();
	const start = clock.now();
	const options = readOptions({ maxPerSecond, ...(maxThrottleWait !== undefined && { maxThrottleWait }) }, 'run', 2, fieldError);
	const cancel = cancelAt === undefined ? undefined : new AbortController();
	if (cancel) void clock.sleep(cancelAt!).then(() => cancel.abort());
	const flow = new FlowControl(new Pacer(options.maxPerSecond, clock.now), { maxThrottleWaitMs: options.maxThrottleWait, maxOutageWaitMs: options.maxOutageWait, continueOnFail: true }, { log: () => undefined, hint: () => undefined }, clock, cancel?.signal);
	const requests: Array<{ itemIndex: number; at: number }> = [];
	const get = async (msgid: string): Promise<StatusAttempt> => {
		const itemIndex = Number(msgid);
		const at = clock.now() - start;
		requests.push({ itemIndex, at });
		const state = lifecycles[itemIndex](at);
		await clock.sleep(latencyMs);
		if (state === 'notFound') return { kind: 'failed', outcome: classifyResponse({ statusCode: 404, headers: {}, body: { errors: [{ message: 'Data does not exist', code: 33 }] } }) as never };
		if (state === 'unavailable') return { kind: 'failed', outcome: classifyResponse({ statusCode: 503, headers: {}, body: { errors: [{ message: 'Service Unavailable', code: 13 }] } }) as never };
		if (state === 'noStatus') return { kind: 'answered', statusCode: 200, body: { msgid, history_status: [] } };
		if ('tooManyRequests' in state) return { kind: 'failed', outcome: classifyResponse({ statusCode: 429, headers: { 'retry-after': String(state.tooManyRequests) }, body: { errors: [{ message: 'Too many requests', code: 9 }] } }, clock.now(), 'GET') as never };
		const body = { msgid, history_status: [{ timestamp: new Date(start + at).toISOString(), status: state.status }], additional_info: state.code ? { code: state.code, reason: 'Send Outside Allowed Window' } : undefined };
		return { kind: 'answered', statusCode: 200, body };
	};
	let results: Array<StatusResult | undefined> = [];
	let error: Error | undefined;
	await clock.run(
		lookEach(
			lifecycles.map((_, itemIndex) => ({ msgid: String(itemIndex) })),
			{ flow, get, clock, redact: (text) => text, node: NODE, signal: cancel?.signal },
			{ ...options, continueOnFail: true, wait },
		).then(
			(done) => void (results = done),
			(thrown: Error) => void (error = thrown),
		),
	);
	const asked = (itemIndex: number) => requests.filter((request) => request.itemIndex === itemIndex).map((request) => request.at);
	const statusOf = (result: StatusResult | undefined) => (result?.kind === 'status' ? result.reading.deliveryStatus : result?.kind);
	return { results, error, requests, asked, statuses: results.map(statusOf), elapsedMs: clock.now() - start, summary: statusSummary(results, NO_TOKEN_IN_ANSWERS, wait) };
}

test('ask once (the default): one lookup per row, whatever its status', async () => {
	const run = await simulateLookups({ lifecycles: [delivered(0), delivered(60_000)] });
	expect(run.requests).toHaveLength(2);
	expect(run.statuses).toEqual(['delivered', 'submitted']);
	expect(run.results.map((result) => result?.kind === 'status' && result.wait)).toEqual([undefined, undefined]);
	expect(run.summary).toBe('Get Status: 1 delivered, 1 submitted');
	expect(readStatusOptions({}, 2, fieldError).wait).toBeUndefined();
	expect(readStatusOptions({ waitUntil: 'read', waitLimit: 2.5 }, 2, fieldError).wait).toEqual({ until: 'read', limitMs: 150_000 });
});

test('until read: each row is asked again, 2 s, then 4, 8, … apart, until it is read or final; read receipts off keep it to the limit', async () => {
	const run = await simulateLookups({
		lifecycles: [delivered(1000, 20_000), delivered(1000), rejectedAt(5000), delivered(0, 0)],
		wait: { until: 'read', limitMs: 2 * MINUTE },
	});
	expect(run.statuses).toEqual(['read', 'delivered', 'rejected', 'read']);
	// The first round: 4 lookups 40 ms apart (25 a second), each answered in 20 ms, over at 140 ms. Each
	// later round starts 2, 4, 8, 16, 32, then 60 s after the previous one is over, the last at the limit.
	expect(run.asked(0)).toEqual([0, 2140, 6240, 14340, 30400]);
	expect(run.asked(2)).toEqual([80, 2220, 6320]);
	// Already read: asked once. Never read: asked until the limit, the last time at its end.
	expect(run.asked(3)).toEqual([120]);
	expect(run.asked(1)).toEqual([40, 2180, 6280, 14380, 30440, 62460, 120_000]);
	expect(run.elapsedMs).toBe(120_020);
	const waitOf = (itemIndex: number) => (run.results[itemIndex] as Extract<StatusResult, { kind: 'status' }>).wait;
	expect(waitOf(0)).toMatchObject({ until: 'read', reached: true, asks: 5 });
	expect(waitOf(1)).toEqual({ until: 'read', reached: false, asks: 7, waitedMs: 120_020 });
	expect(run.summary).toBe('Get Status, waiting up to 2 min for read: 2 read, 1 rejected: Send Outside Allowed Window, 1 still delivered after 2 min');
});

test('until delivered: read counts as delivered; a row that never gets there stops at the limit, asked no more often than every 60 s at the end', async () => {
	const run = await simulateLookups({ lifecycles: [delivered(0, 0), delivered(3000), delivered(Infinity)], wait: { until: 'delivered', limitMs: 10 * MINUTE } });
	expect(run.statuses).toEqual(['read', 'delivered', 'submitted']);
	expect(run.asked(0)).toHaveLength(1);
	expect(run.asked(1)).toHaveLength(3);
	const stuck = run.asked(2);
	expect(stuck.at(-1)).toBe(10 * MINUTE);
	const gaps = stuck.slice(1).map((at, index) => at - stuck[index]);
	expect(Math.min(...gaps)).toBeGreaterThanOrEqual(askAgainAfterMs(1));
	expect(Math.max(...gaps)).toBeLessThanOrEqual(askAgainAfterMs(99) + 100);
	expect(stuck.length).toBeLessThanOrEqual(16);
	expect(run.summary).toBe('Get Status, waiting up to 10 min for delivered: 1 read, 1 delivered, 1 still submitted after 10 min');
});

test("many rows waiting: the rounds keep to the pace, never more lookups in a second than Max Requests per Second", async () => {
	const rows = Array.from({ length: 60 }, (_, index) => delivered(index % 2 === 0 ? 0 : Infinity));
	const run = await simulateLookups({ lifecycles: rows, wait: { until: 'delivered', limitMs: MINUTE }, maxPerSecond: 10 });
	const times = run.requests.map((request) => request.at).sort((a, b) => a - b);
	let busiest = 0;
	for (let first = 0, last = 0; last < times.length; last++) {
		while (times[last] - times[first] >= 1000) first++;
		busiest = Math.max(busiest, last - first + 1);
	}
	expect(busiest).toBeLessThanOrEqual(10);
	// Each waiting row's asks are spaced: never again before its last answer and the round's pause.
	for (let itemIndex = 1; itemIndex < 60; itemIndex += 2) {
		const asked = run.asked(itemIndex);
		expect(asked.slice(1).every((at, index) => at - asked[index] >= askAgainAfterMs(1))).toBe(true);
	}
	expect(run.statuses.filter((status) => status === 'delivered')).toHaveLength(30);
});

test('a cancelled execution stops the wait at once: no lookup after the cancel, and the run throws', async () => {
	const run = await simulateLookups({ lifecycles: [delivered(Infinity)], wait: { until: 'read', limitMs: 10 * MINUTE }, cancelAt: 45_000 });
	expect(run.error?.message).toMatch(/aborted/);
	expect(run.elapsedMs).toBe(45_000);
	expect(Math.max(...run.asked(0))).toBeLessThan(45_000);
});

describe('Wait Until among refusals and 429s', () => {
	type Answer = { status: number; body: unknown; headers?: Record<string, string> };
	/** Lookups on a simulated clock, each answered by `answer(itemIndex, ms since the start)`. */
	async function answeredBy({ rows, answer, wait, maxThrottleWait }: { rows: number; answer: (itemIndex: number, at: number) => Answer; wait: WaitSettings; maxThrottleWait?: number }) {
		const clock = new SimulatedClock();
		const start = clock.now();
		const options = readOptions({ maxPerSecond: 25, maxThrottleWait }, 'run', 2, fieldError);
		const flow = new FlowControl(new Pacer(options.maxPerSecond, clock.now), { maxThrottleWaitMs: options.maxThrottleWait, maxOutageWaitMs: options.maxOutageWait, continueOnFail: true }, { log: () => undefined, hint: () => undefined }, clock);
		const requests: Array<{ itemIndex: number; at: number; status: number }> = [];
		const get = async (msgid: string): Promise<StatusAttempt> => {
			const itemIndex = Number(msgid);
			const at = clock.now() - start;
			const { status, body, headers = {} } = answer(itemIndex, at);
			requests.push({ itemIndex, at, status });
			await clock.sleep(20);
			if (status === 200) return { kind: 'answered', statusCode: 200, body };
			return { kind: 'failed', outcome: classifyResponse({ statusCode: status, headers, body }, clock.now(), 'GET') as never };
		};
		let results: Array<StatusResult | undefined> = [];
		await clock.run(
			lookEach(
				Array.from({ length: rows }, (_, itemIndex) => ({ msgid: String(itemIndex) })),
				{ flow, get, clock, redact: (text) => text, node: NODE },
				{ ...options, continueOnFail: true, wait },
			).then((done) => void (results = done)),
		);
		const statuses = results.map((result) => (result?.kind === 'status' ? result.reading.deliveryStatus : result?.kind));
		return { results, statuses, requests, elapsedMs: clock.now() - start, stops: flow.stops };
	}
	const statusBody = (msgid: number, at: number, status: string) => ({ msgid: String(msgid), history_status: [{ timestamp: new Date(Date.UTC(2026, 10, 25, 9) + at).toISOString(), status }] });

	test('one 429 in a round minutes in (Max Wait When Throttled 30 s): the rounds between count as no 429s, the rows are asked until delivered', async () => {
		let throttledOnce = false;
		const run = await answeredBy({
			rows: 3,
			maxThrottleWait: 30,
			wait: { until: 'delivered', limitMs: 10 * MINUTE },
			answer: (itemIndex, at) => {
				if (at > 3 * MINUTE && !throttledOnce) {
					throttledOnce = true;
					return { status: 429, body: { errors: [{ message: 'Too many requests', code: 9 }] }, headers: { 'Retry-After': '1' } };
				}
				return { status: 200, body: statusBody(itemIndex, at, at > 4 * MINUTE ? 'delivered' : 'submitted') };
			},
		});
		expect(run.stops).toEqual([]);
		expect(run.statuses).toEqual(['delivered', 'delivered', 'delivered']);
	});

	test('the token refused in the second round: the rounds end there, each row keeps its status and says why it has no newer one', async () => {
		const run = await answeredBy({
			rows: 2,
			wait: { until: 'delivered', limitMs: 10 * MINUTE },
			answer: (itemIndex, at) => (at < 1000 ? { status: 200, body: statusBody(itemIndex, at, 'submitted') } : { status: 401, body: { errors: [{ message: 'Token is invalid', code: 45 }] } }),
		});
		expect(run.stops).toEqual([expect.objectContaining({ scope: 'account' })]);
		expect(run.requests.filter((request) => request.status === 401)).toHaveLength(1);
		// Was: asleep to the Wait Limit (10 min), asking nothing.
		expect(run.elapsedMs).toBeLessThan(5000);
		expect(run.statuses).toEqual(['submitted', 'submitted']);
		expect(run.results.map((result) => result?.kind === 'status' && result.wait?.lastAskFailed)).toEqual([expect.stringMatching(/Token is invalid \(code 45\)/), expect.stringMatching(/Token is invalid \(code 45\)/)]);
	});
});

test('a status word of its own for each of 300 messages: the summary names a few and counts the rest together', () => {
	const reading = (deliveryStatus: string) => ({ deliveryStatus, final: false, statusAt: null, deliveredAt: null, readAt: null, failureCode: null, failureReason: null, history: [], historyDropped: 0, msgid: null, phoneNumber: null, problems: [] });
	const results = [
		...Array.from({ length: 300 }, (_, i): StatusResult => ({ kind: 'status', reading: reading(`queued_at_carrier_node_${i}`) as never, attempts: 1 })),
		{ kind: 'status', reading: reading('read') as never, attempts: 1 } as StatusResult,
		{ kind: 'notFound', outcome: { kind: 'rejected', reason: 'Data does not exist', transient: false }, attempts: 1 } as StatusResult,
	];
	expect(statusSummary(results, NO_TOKEN_IN_ANSWERS)).toBe('Get Status: 1 read, 1 queued_at_carrier_node_0, 1 queued_at_carrier_node_1, 1 queued_at_carrier_node_2, 1 queued_at_carrier_node_3, 1 queued_at_carrier_node_4, 295 with 295 other statuses, 1 not found');
});

test('with Wait Until, the rows still on their way in a word the node knows are named, whatever words the API wrote before them; those it does not know are folded', () => {
	const reading = (deliveryStatus: string) => ({ deliveryStatus, final: false, statusAt: null, deliveredAt: null, readAt: null, failureCode: null, failureReason: null, history: [], historyDropped: 0, msgid: null, phoneNumber: null, problems: [] });
	const waited = { until: 'delivered' as const, reached: false, asks: 9, waitedMs: 10 * 60_000 };
	const results: StatusResult[] = [
		...['sent', 'queued', 'accepted', 'pending', 'enroute', 'buffered', 'held'].map((word): StatusResult => ({ kind: 'status', reading: reading(word) as never, attempts: 1, wait: waited })),
		...Array.from({ length: 40 }, (): StatusResult => ({ kind: 'status', reading: reading('submitted') as never, attempts: 1, wait: waited })),
	];
	expect(statusSummary(results, NO_TOKEN_IN_ANSWERS, { until: 'delivered', limitMs: 10 * 60_000 })).toBe(
		'Get Status, waiting up to 10 min for delivered: 1 still sent after 10 min, 1 still queued after 10 min, 1 still accepted after 10 min, 1 still pending after 10 min, 1 still enroute after 10 min, 2 with 2 other statuses, 40 still submitted after 10 min',
	);
});

describe('Wait Until and a msgid the API does not know', () => {
	const knownFrom = (atMs: number): Lifecycle => (ms) => (ms >= atMs ? { status: 'delivered' } : 'notFound');

	test('not known yet at the first lookup (a status store behind the send): asked again 2 s and 6 s after it, then delivered', async () => {
		const run = await simulateLookups({ lifecycles: [knownFrom(3000)], wait: { until: 'delivered', limitMs: 10 * MINUTE } });
		expect(run.statuses).toEqual(['delivered']);
		expect(run.asked(0)).toEqual([0, 2020, 6040]);
	});

	test('never known (a typo), beside rows that are final at once: asked in the first three rounds only, the run ends 14 s in, not at the 10 min limit', async () => {
		const run = await simulateLookups({ lifecycles: [() => 'notFound', rejectedAt(0), delivered(0, 0)], wait: { until: 'read', limitMs: 10 * MINUTE } });
		expect(run.statuses).toEqual(['notFound', 'rejected', 'read']);
		expect(run.asked(0)).toEqual([0, 2100, 6120, 14140]);
		expect(run.elapsedMs).toBe(14160);
		const [unknown] = run.results;
		expect(unknown?.kind === 'notFound' && unknown.askedAgain).toEqual({ asks: 4, waitedMs: 14160 });
	});

	test('its last lookup failing (503) is said, not taken for "it did not know it"', async () => {
		const run = await simulateLookups({ lifecycles: [(ms) => (ms < 10_000 ? 'notFound' : 'unavailable')], wait: { until: 'delivered', limitMs: 10 * MINUTE } });
		const [unknown] = run.results;
		expect(unknown?.kind).toBe('notFound');
		expect(unknown?.kind === 'notFound' && unknown.askedAgain?.lastAskFailed).toMatch(/^HTTP 503/);
	});

	test('with a limit of 0, one ask: no "asked again"', async () => {
		const run = await simulateLookups({ lifecycles: [() => 'notFound'], wait: { until: 'delivered', limitMs: 0 } });
		expect(run.asked(0)).toEqual([0]);
		expect(run.results[0]?.kind === 'notFound' && run.results[0].askedAgain).toBeUndefined();
	});
});

describe('a status seen never goes back', () => {
	test.each<[string, Lifecycle]>([
		['an answer with no status (an empty history)', (ms) => (ms < 1000 ? { status: 'delivered' } : 'noStatus')],
		['an answer behind it (submitted, from a store lagging behind)', (ms) => (ms < 1000 ? { status: 'delivered' } : { status: 'submitted' })],
	])('Wait Until Read, a row seen delivered, then %s: it stays delivered, and says why it has no newer status', async (_name, lifecycle) => {
		const run = await simulateLookups({ lifecycles: [lifecycle], wait: { until: 'read', limitMs: MINUTE } });
		expect(run.statuses).toEqual(['delivered']);
		const [row] = run.results as Array<Extract<StatusResult, { kind: 'status' }>>;
		expect(row.reading.deliveredAt).not.toBeNull();
		expect(row.wait?.lastAskFailed).toMatch(/^its answer (held no status|said submitted, behind the delivered it had reached)/);
	});

	test('a word the provider does not document after delivered is the status now, and when it was delivered stays known', async () => {
		const run = await simulateLookups({ lifecycles: [(ms) => (ms < 1000 ? { status: 'delivered' } : { status: 'sent' })], wait: { until: 'read', limitMs: MINUTE } });
		expect(run.statuses).toEqual(['sent']);
		const [row] = run.results as Array<Extract<StatusResult, { kind: 'status' }>>;
		// Was null: a sheet's deliveredAt written over with nothing.
		expect(row.reading.deliveredAt).not.toBeNull();
	});

	test('a final status after delivered (rejected) is taken', async () => {
		const run = await simulateLookups({ lifecycles: [(ms) => (ms < 1000 ? { status: 'delivered' } : { status: 'rejected', code: 1340 })], wait: { until: 'read', limitMs: MINUTE } });
		expect(run.statuses).toEqual(['rejected']);
	});
});

test('Max Wait When Throttled 5 s: a 429 in one round and another a round later do not add up to "nothing but 429s" across the pause between them', async () => {
	let tooMany = 0;
	const lifecycle: Lifecycle = (ms) => {
		if (ms > 20_000 && tooMany === 0) return (tooMany++, { tooManyRequests: 10 });
		if (ms > 50_000 && tooMany === 1) return (tooMany++, { tooManyRequests: 1 });
		return { status: ms > 5 * MINUTE ? 'delivered' : 'submitted' };
	};
	const run = await simulateLookups({ lifecycles: [lifecycle, delivered(5 * MINUTE + 1), delivered(5 * MINUTE + 1)], wait: { until: 'delivered', limitMs: 10 * MINUTE }, maxThrottleWait: 5 });
	expect(tooMany).toBe(2);
	// Was: the first row's 429s 32 s apart read as 32 s of nothing but 429s, and every lookup stopped at 62 s.
	expect(run.statuses).toEqual(['delivered', 'delivered', 'delivered']);
});
