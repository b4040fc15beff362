/**
 * Get Status at the provider's pace: 1,000 lookups against a sandbox that allows 25 requests a
 * second (sends and lookups together, as the provider counts them), alone and sharing the
 * credential's pace with a send of 1,000 running at the same time in the same process. Each run's
 * time is set against the ideal (n requests leave in n - 1 gaps of 1/25 s); every figure comes from
 * the same run. `npm run bench` puts the section into docs/benchmarks.md; `npm run bench -- status`
 * runs only this part and replaces only its section.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import os from 'node:os';

import type { RunResult } from '../test/helpers/engine';
import { CREDENTIAL_TYPE, NODE_TYPE, runWorkflow } from '../test/helpers/engine';
import { REPORT_FILE, SCALE, verdict } from './scale';
import { rows, startSandbox, TOKEN } from './senders';
import { fixed } from './stats';

const RATE = 25;
const ITEMS = SCALE.statusItems;
/** The goal: each run within this factor of its ideal time, with no 429. */
const GOAL = 1.02;
/** With X-RateLimit-Reset in a form that says less (whole seconds, milliseconds, none). */
const RESET_GOAL = 1.05;
export const STATUS_HEADING = '## 7. Get Status at the provider\'s pace';

interface StatusSandbox {
	url: string;
	stop(): Promise<void>;
	read(): Promise<{ stats: Record<string, number>; messages: Array<{ msgid: string }> }>;
}

/** One node's execution in n8n's engine: when it started and ended (ms), as the engine records it. */
interface Span {
	start: number;
	end: number;
	items: number;
	/** Rows that did not come out as asked: a send not sent, a lookup without a status. */
	wrong: number;
}

export interface StatusRun {
	label: string;
	sends: number;
	lookups: number;
	/** From the first execution's start to the last one's end. */
	seconds: number;
	idealSeconds: number;
	sendRateLimited: number;
	lookupRateLimited: number;
	wrong: number;
	/** The most requests that arrived at the sandbox in any one second (the limit counts arrivals). */
	busiestSecond: number;
	/** The machine's one-minute load average at the run's end (others' work on it included). */
	load: number;
	/** Within this factor of its ideal time, and 429s on at most this share of its requests. */
	goal: number;
	max429Share: number;
}

const node = (name: string, parameters: object) => ({
	id: name,
	name,
	type: NODE_TYPE,
	typeVersion: 2,
	position: [200, 0] as [number, number],
	// Max Messages per Second and Max Requests per Second at their default, 25: one shared pace.
	parameters: parameters as never,
	credentials: { [CREDENTIAL_TYPE]: { id: 'c', name: 'c' } },
});

async function runNode(sandbox: StatusSandbox, name: string, parameters: object, items: object[]): Promise<Span> {
	const workflow = {
		nodes: [{ id: 'rows', name: 'Rows', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0] as [number, number], parameters: {} }, node(name, parameters)],
		connections: { Rows: { main: [[{ node: name, type: 'main' as const, index: 0 }]] } },
		pinData: { Rows: items.map((json) => ({ json: { ...json } })) },
	};
	const result: RunResult = await runWorkflow(workflow as never, { [CREDENTIAL_TYPE]: { baseUrl: sandbox.url, token: TOKEN } });
	const task = result.run.data.resultData.runData[name][0];
	const output = result.output(name).map((item) => item.json);
	const wrong = name === 'Send' ? output.filter((row) => row.success !== true).length : output.filter((row) => typeof row.deliveryStatus !== 'string').length;
	return { start: task.startTime, end: task.startTime + task.executionTime, items: items.length, wrong };
}

const send = (sandbox: StatusSandbox, count: number, offset: number) =>
	runNode(sandbox, 'Send', { phoneNumber: '={{ $json.phone }}', templateCodeId: 'bench', bodyValues: { values: [{ text: '={{ $json.name }}' }] } }, rows(count, offset));
const lookUp = (sandbox: StatusSandbox, msgids: string[]) => runNode(sandbox, 'Get Status', { operation: 'getStatus' }, msgids.map((msgid) => ({ msgid })));

/** The three runs, one after the other against one sandbox (its counters read between them). */
export async function measureStatus(port = 5817): Promise<StatusRun[]> {
	const sandbox = (await startSandbox(port, 20, RATE)) as unknown as StatusSandbox;
	try {
		const runs: StatusRun[] = [];
		let before = (await sandbox.read()).stats;
		const record = async (label: string, spans: Span[], sends: number, lookups: number) => {
			const { stats } = await sandbox.read();
			runs.push(measured(label, spans, sends, lookups, before, stats));
			before = stats;
			await fetch(`${sandbox.url}/api/busiest-second`, { method: 'DELETE' });
		};
		// The sends whose msgids the lookups ask for: measured too, as the reference.
		await record(`Send ${ITEMS} (the messages the lookups then ask for)`, [await send(sandbox, ITEMS, 0)], ITEMS, 0);
		const msgids = (await sandbox.read()).messages.map((message) => message.msgid);
		await record(`Get Status for those ${ITEMS}, alone`, [await lookUp(sandbox, msgids)], 0, ITEMS);
		// Two executions at once on one credential, as two workflows (or a Send and a Get Status in one) would run.
		await record(`Get Status for those ${ITEMS} and a Send of ${ITEMS} more, at the same time, on the same credential`, await Promise.all([lookUp(sandbox, msgids), send(sandbox, ITEMS, ITEMS)]), ITEMS, ITEMS);
		await sandbox.stop();
		// X-RateLimit-Reset as other providers write it: each in a sandbox of its own.
		for (const [form, words] of RESET_FORMS) {
			const other = (await startSandbox(port, 20, RATE, false, 0, form)) as unknown as StatusSandbox;
			try {
				const start = (await other.read()).stats;
				const span = await send(other, ITEMS, 0);
				const { stats } = await other.read();
				runs.push({ ...measured(`Send ${ITEMS}, X-RateLimit-Reset ${words}`, [span], ITEMS, 0, start, stats), goal: RESET_GOAL });
			} finally {
				await other.stop();
			}
		}
		// Another system sending on the account: the headers announce 25, a fifth of it is left.
		const shared = (await startSandbox(port, 20, RATE, false, OTHERS_SHARE)) as unknown as StatusSandbox;
		try {
			const start = (await shared.read()).stats;
			const span = await send(shared, SHARED_ITEMS, 0);
			const { stats } = await shared.read();
			const left = Math.round(RATE * (1 - OTHERS_SHARE));
			runs.push({ ...measured(`Send ${SHARED_ITEMS}, another sender using ${OTHERS_SHARE * 100}% of the account (the ${left} a second left)`, [span], SHARED_ITEMS, 0, start, stats), idealSeconds: (SHARED_ITEMS - 1) / left, goal: SHARED_GOAL, max429Share: SHARED_MAX_429 });
		} finally {
			await shared.stop();
		}
		return runs;
	} finally {
		await sandbox.stop();
	}
}

/** Another sender's part of the account, the run's size, and its goals: time against the share left, and 429s. */
const OTHERS_SHARE = 0.8;
const SHARED_ITEMS = Math.max(20, ITEMS);
const SHARED_GOAL = 1.1;
const SHARED_MAX_429 = 0.02;

const RESET_FORMS: Array<[string, string]> = [
	['seconds', 'in whole seconds (`1`)'],
	['ms', 'in milliseconds (`40`)'],
	['none', 'absent'],
];

function measured(label: string, spans: Span[], sends: number, lookups: number, before: Record<string, number>, after: Record<string, number>): StatusRun {
	const seconds = (Math.max(...spans.map((span) => span.end)) - Math.min(...spans.map((span) => span.start))) / 1000;
	return {
		label,
		sends,
		lookups,
		seconds,
		idealSeconds: (sends + lookups - 1) / RATE,
		sendRateLimited: after.rateLimited - before.rateLimited,
		lookupRateLimited: after.lookupsRateLimited - before.lookupsRateLimited,
		wrong: spans.reduce((sum, span) => sum + span.wrong, 0),
		busiestSecond: after.busiestSecond,
		load: os.loadavg()[0],
		goal: GOAL,
		max429Share: 0,
	};
}

/** The runs of measureStatus repeated `rounds.length` times with `busyJobs` CPU-bound processes beside them. */
export interface StatusCondition {
	busyJobs: number;
	rounds: StatusRun[][];
}

export function statusReportLines(conditions: StatusCondition[]): string[] {
	const failed = [...new Set(conditions.flatMap((condition) => condition.rounds.flat().filter((run) => !withinGoal(run)).map((run) => `"${run.label}"${beside(condition.busyJobs)}`)))];
	const roundCounts = [...new Set(conditions.map((condition) => condition.rounds.length))].join(' or ');
	return [
		STATUS_HEADING,
		'',
		`bench/status.ts, in n8n-core's engine in this process, against the sandbox in a child process with 20 ms latency and a limit of ${RATE} requests a second that sends and lookups share (a strict sliding one-second window counting requests as they arrive, 429 past it), the node at its defaults (Max Messages per Second and Max Requests per Second ${RATE}). ` +
			`The first three runs follow each other against one sandbox, whose X-RateLimit-Reset is in seconds with a fraction (\`0.040\`); the third runs a Get Status and a Send as two executions at once on the same credential, which share one pace. The next three each send against a sandbox of their own that writes X-RateLimit-Reset in another form; the last against one where another sender uses ${OTHERS_SHARE * 100}% of the account (the headers still announce ${RATE}), its ideal time at the ${Math.round(RATE * (1 - OTHERS_SHARE))} a second left. ` +
			"Time is from the first execution's start to the last one's end, as the engine records them; the ideal is n requests in n - 1 gaps of 1/25 s. 429s and the most arrivals in one second are the sandbox's counts. " +
			`Each run ran ${roundCounts === '1' ? 'once' : `${roundCounts} times (the figures of each round in order)`}, with nothing else running on the machine or with the CPU-bound processes (\`yes > /dev/null\`) its row names.`,
		'',
		`| Run | Beside it | Sends | Lookups | Time ÷ ideal time, each round (goal) | 429 answers (sends, lookups), each round | Most arrivals in one second | Rows not as asked | Load average at its end (${os.cpus().length} CPUs) |`,
		'|---|---|---|---|---|---|---|---|---|',
		...conditions.flatMap(({ busyJobs, rounds }) =>
			rounds[0].map((first, index) => {
				const each = rounds.map((round) => round[index]);
				const most = (pick: (run: StatusRun) => number) => Math.max(...each.map(pick));
				return `| ${first.label} | ${busyJobs === 0 ? 'nothing' : busyJobsNamed(busyJobs)} | ${first.sends} | ${first.lookups} | ${each.map((run) => fixed(run.seconds / run.idealSeconds, 3)).join(' / ')} (≤ ${first.goal}${first.max429Share > 0 ? `, 429s ≤ ${first.max429Share * 100}%` : ''}) | ${each.map((run) => `${run.sendRateLimited}, ${run.lookupRateLimited}`).join(' / ')} | ${most((run) => run.busiestSecond)} | ${each.reduce((sum, run) => sum + run.wrong, 0)} | ${fixed(most((run) => run.load), 1)} |`;
			}),
		),
		'',
		`Goal: each run within its factor of its ideal time, with no 429 (or at most the share named), in every round: ${verdict(failed.length === 0, `not met by ${failed.join(', ')}`)}.`,
		'',
		"How: the pacer spaces starts 1/25 s apart and keeps a record of when each request may have reached the API: n8n's helper connects after the pacer counts a request, and the first requests of a process, or any the event loop holds up, arrive tens of milliseconds late. Each answer's time beyond the fastest answer bounds how late its request arrived; no more than 25 of the record's arrivals fall in any second and 4 ms (flow/pacer.ts). X-RateLimit-Remaining 0, which an exact pace meets on every answer, pauses no one while the record explains it; a delay in X-RateLimit-Reset is read as one window at most, whatever its unit. What the API counted (Limit less Remaining) less what the record had in the window is what others use: the pace takes a whole number of what they leave.",
	];
}

const busyJobsNamed = (count: number) => `${count} busy job${count === 1 ? '' : 's'}`;
const beside = (busyJobs: number) => (busyJobs === 0 ? '' : ` with ${busyJobsNamed(busyJobs)}`);

/** `count` CPU-bound processes (`yes` into /dev/null) for the length of `work`. */
async function withBusyJobs<T>(count: number, work: () => Promise<T>): Promise<T> {
	const jobs = Array.from({ length: count }, () => spawn('yes', [], { stdio: 'ignore' }));
	try {
		return await work();
	} finally {
		for (const job of jobs) job.kill();
	}
}

/** Replaces this section of docs/benchmarks.md (or adds it before the closing section). */
function writeSection(lines: string[]) {
	const file = REPORT_FILE;
	const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
	const section = `${lines.join('\n')}\n\n`;
	const start = text.indexOf(`${STATUS_HEADING}\n`);
	const closing = text.indexOf('## Which ceiling is whose');
	const next = start === -1 ? -1 : text.indexOf('\n## ', start + 1);
	const updated =
		start !== -1 ? text.slice(0, start) + section + (next === -1 ? '' : text.slice(next + 1)) : closing !== -1 ? text.slice(0, closing) + section + text.slice(closing) : `${text.trimEnd()}\n\n${section}`;
	writeFileSync(file, updated.replace(/\n+$/, '\n'));
}

/** BENCH_STATUS_ROUNDS (1) rounds, quiet and then with each count of busy jobs in BENCH_STATUS_BUSY (none; \`2\` for two). */
async function measureConditions(): Promise<StatusCondition[]> {
	const rounds = Number(process.env.BENCH_STATUS_ROUNDS ?? 1);
	const busy = [0, ...(process.env.BENCH_STATUS_BUSY ?? '').split(',').filter(Boolean).map(Number)];
	const conditions: StatusCondition[] = [];
	for (const busyJobs of busy) {
		const condition: StatusCondition = { busyJobs, rounds: [] };
		for (let round = 0; round < rounds; round++) {
			console.error(`Round ${round + 1} of ${rounds}${beside(busyJobs)}…`);
			condition.rounds.push(await withBusyJobs(busyJobs, () => measureStatus()));
		}
		conditions.push(condition);
	}
	return conditions;
}

if (require.main === module) {
	measureConditions().then(
		(conditions) => {
			const lines = [...statusReportLines(conditions), '', `Measured by \`npm run bench -- status\` on ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.versions.node}.`];
			console.log(lines.join('\n'));
			writeSection(lines);
			process.exit(0);
		},
		(error) => {
			console.error(error);
			process.exit(1);
		},
	);
}
function withinGoal(run: StatusRun): boolean {
	const refused = run.sendRateLimited + run.lookupRateLimited;
	return run.seconds / run.idealSeconds <= run.goal && refused <= run.max429Share * (run.sends + run.lookups + refused) && run.wrong === 0;
}

