import type { INode } from 'n8n-workflow';

import { FlowControl } from '../../nodes/TemplateMessage/flow/flowControl';
import { readRateLimit } from '../../nodes/TemplateMessage/api/headers';
import { classifyResponse } from '../../nodes/TemplateMessage/api/outcome';
import { Pacer } from '../../nodes/TemplateMessage/flow/pacer';
import { Progress } from '../../nodes/TemplateMessage/send/progress';
import { Redactor } from '../../nodes/TemplateMessage/api/redact';
import { sendEach } from '../../nodes/TemplateMessage/send/sendAll';
import { SentMemory } from '../../nodes/TemplateMessage/send/sentMemory';
import type { PreparedMessage, SendResult } from '../../nodes/TemplateMessage/shared/contracts';
import { statusOf } from '../../nodes/TemplateMessage/shared/contracts';
import { readOptions } from '../../nodes/TemplateMessage/shared/options';
import { fieldError } from '../../nodes/TemplateMessage/shared/optionSpec';
import { SimulatedClock } from './simulatedClock';

/** What the scripted API answers one request. */
export interface SimulatedAnswer {
	status: number;
	headers?: Record<string, string>;
	body?: unknown;
}

/** One request as the scripted API received it: the item, when (on the simulated clock), its answer's status. */
export interface SimulatedRequest {
	itemIndex: number;
	templateCodeId: string;
	at: number;
	answer: number;
}

export type Script = (request: { itemIndex: number; templateCodeId: string; index: number; now: number }) => SimulatedAnswer;

export const accepted = (itemIndex: number): SimulatedAnswer => ({ status: 200, body: { msgid: `m-${itemIndex}`, success: true } });
export const tooManyRequests = (headers: Record<string, string> = {}): SimulatedAnswer => ({ status: 429, headers, body: { errors: [{ message: 'Too many requests', code: 9 }] } });
export const internalError: SimulatedAnswer = { status: 500, body: { errors: [{ message: 'Internal error', code: 13 }] } };

export interface SimulatedSettings {
	/** Report progress as a real run does (every PROGRESS_EVERY_MS), into `progress`. */
	reportProgress?: boolean;
	items: number;
	script?: Script;
	/** The template of each item (default tpl-a). */
	templateOf?: (itemIndex: number) => string;
	maxPerSecond?: number;
	maxConcurrency?: number;
	maxAttempts?: number;
	/** Seconds. */
	maxThrottleWait?: number;
	/** Seconds. */
	maxOutageWait?: number;
	continueOnFail?: boolean;
	/** How long each answer takes, in ms. */
	latencyMs?: number;
	/** How long after the pacer let it go each request reaches the API (n8n's helper connecting, a busy event loop), in ms; its answer is that much later too. */
	arrivalLagMs?: (index: number) => number;
	/** How much later than its latency each answer reaches the node (a busy event loop), in ms: the request arrived on time. */
	answerLagMs?: (index: number) => number;
	/** Cancel the run this many ms after it started (on the simulated clock), as n8n's Stop execution does. */
	cancelAt?: number;
	/** Start the run this many ms after the others' start (a queue job taken later). */
	startAfterMs?: number;
}

const NODE: INode = { id: 'sim', name: 'Template Message', type: 'templateMessage', typeVersion: 2, position: [0, 0], parameters: {} };

/**
 * The node's send stage (sendEach, deliver, FlowControl and its pacer) against a scripted API on a
 * simulated clock: the answers go through the same classification as a real answer's, and nothing
 * but the HTTP call itself and the clock is a stand-in.
 */
export async function simulateRun(settings: SimulatedSettings) {
	const [run] = await simulateRuns([settings]);
	return run;
}

/**
 * Runs started at the same moment on one simulated clock, sharing one pacer as the executions of one
 * account in one n8n process do (sharedPacer): the pace is the first run's Max Messages per Second.
 * With `pacers: 'each'`, each run has its own, as executions on separate queue-mode workers do.
 */
export async function simulateRuns(all: SimulatedSettings[], { pacers = 'shared' }: { pacers?: 'shared' | 'each' | number[] } = {}) {
	const clock = new SimulatedClock();
	const start = clock.now();
	// 'each': a pacer per run, as queue-mode workers (separate processes) have; a list: the worker of each run, whose runs share its pacer.
	const workerOf = (index: number) => (pacers === 'shared' ? 0 : pacers === 'each' ? index : pacers[index]);
	const byWorker = new Map<number, Pacer>();
	const pacerOf = (index: number) => {
		const worker = workerOf(index);
		if (!byWorker.has(worker)) byWorker.set(worker, new Pacer(optionsOf(all[index]).maxPerSecond, clock.now));
		return byWorker.get(worker)!;
	};
	const runs = all.map((settings, index) => startRun(settings, clock, pacerOf(index)));
	await clock.run(Promise.all(runs.map((run) => run.done)));
	return runs.map(({ flow, results, error, requests, logs, hints, progress }) => {
		flow.summarise();
		return {
			results,
			/** What the run threw: a cancelled run throws, as it does in n8n. */
			error,
			requests,
			logs,
			hints,
			/** The progress lines, with when they were said (ms from the start). */
			progress,
			statuses: results.map((result) => (result === undefined ? undefined : statusOf(result))),
			/** Ms from the start of the run, on the simulated clock. */
			elapsedMs: clock.now() - start,
			since: (at: number) => at - start,
			stops: flow.stops,
			firstFailure: flow.firstFailure,
			throttled: flow.throttled,
		};
	});
}

/** Read as a run reads the Options collection: the settings in the editor's units, the rest their defaults. */
function optionsOf({ maxPerSecond, maxAttempts, maxThrottleWait, maxOutageWait, maxConcurrency }: SimulatedSettings) {
	return readOptions({ maxPerSecond, maxAttempts, maxThrottleWait, maxOutageWait, maxConcurrency }, 'run', 2, fieldError);
}

function startRun(settings: SimulatedSettings, clock: SimulatedClock, pacer: Pacer) {
	const { items, script = ({ itemIndex }) => accepted(itemIndex), templateOf = () => 'tpl-a', latencyMs = 20 } = settings;
	const options = optionsOf(settings);
	const logs: string[] = [];
	const progress: Array<{ at: number; line: string }> = [];
	const hints: string[] = [];
	const cancel = settings.cancelAt === undefined ? undefined : new AbortController();
	if (cancel) void clock.sleep(settings.cancelAt!).then(() => cancel.abort());
	const flow = new FlowControl(
		pacer,
		{ maxThrottleWaitMs: options.maxThrottleWait, maxOutageWaitMs: options.maxOutageWait, continueOnFail: settings.continueOnFail ?? true, maxPerSecond: options.maxPerSecond },
		{ log: (message) => logs.push(message), hint: (message) => hints.push(message) },
		clock,
		cancel?.signal,
	);
	const messages: PreparedMessage[] = Array.from({ length: items }, (_, itemIndex) => ({
		request: { phone_number: String(itemIndex), message: { type: 'template', template: { template_code_id: templateOf(itemIndex), payload: [] } } },
		tryKey: String(itemIndex),
	}));
	const requests: SimulatedRequest[] = [];
	let sent = 0;
	const post = async (request: PreparedMessage['request']) => {
		const itemIndex = Number(request.phone_number);
		const templateCodeId = request.message.template.template_code_id;
		const index = sent++;
		const lag = settings.arrivalLagMs?.(index) ?? 0;
		if (lag > 0) await clock.sleep(lag);
		const at = clock.now();
		const answer = script({ itemIndex, templateCodeId, index: requests.length, now: at });
		requests.push({ itemIndex, templateCodeId, at, answer: answer.status });
		await clock.sleep(latencyMs + (settings.answerLagMs?.(index) ?? 0));
		const headers = answer.headers ?? {};
		return { outcome: classifyResponse({ statusCode: answer.status, headers, body: answer.body }, clock.now()), rateLimit: readRateLimit(headers, clock.now()) };
	};
	const run = {
		results: [] as Array<SendResult | undefined>,
		error: undefined as Error | undefined,
		requests,
		logs,
		hints,
		progress,
		flow,
		done: Promise.resolve(),
	};
	const reporter = settings.reportProgress ? new Progress(items, (line) => progress.push({ at: clock.now(), line }), clock.now) : undefined;
	const started = settings.startAfterMs === undefined ? Promise.resolve() : clock.sleep(settings.startAfterMs);
	run.done = started.then(() => sendEach(messages, { post, flow, retry: options, memory: new SentMemory({}, 'run'), redactor: new Redactor('token'), progress: reporter }, { node: NODE, concurrency: options.maxConcurrency, signal: cancel?.signal })).then(
		(results) => void (run.results = results),
		(error: Error) => void (run.error = error),
	);
	return run;
}

/** The most requests that arrived in any one second. */
export function busiestSecond(times: number[]): number {
	let most = 0;
	for (let first = 0, last = 0; last < times.length; last++) {
		while (times[last] - times[first] >= 1000) first++;
		most = Math.max(most, last - first + 1);
	}
	return most;
}
