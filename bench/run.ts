/**
 * `npm run bench`: this node against a raw keep-alive client, n8n's helper alone (bench/floorNode.ts)
 * and n8n's HTTP Request node, over HTTP and HTTPS, against the sandbox API in child processes with
 * 20 ms latency. Every sender runs once per round, rounds interleaved (the order rotates each round),
 * and the report gives medians with their range; ratios are taken within each round. Writes
 * docs/benchmarks.md.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { renderPreview } from '../nodes/TemplateMessage/request/preview';
import { buildSendRequest } from '../nodes/TemplateMessage/request/payload';
import { parseTemplate } from '../nodes/TemplateMessage/request/templateShape';
import { PACKAGE_ROOT } from '../test/helpers/engine';
import type { Sample, Sandbox, TargetNode } from './senders';
import { floorTarget, httpRequestTarget, rows, runInEngine, runRawClient, startSandbox, templateNode } from './senders';
import { REPORT_FILE, SCALE, verdict } from './scale';
import { fixed, median, ratios, spread } from './stats';
import type { StatusRun } from './status';
import { measureStatus, statusReportLines } from './status';

const ROUNDS = SCALE.rounds;
const HTTP_ITEMS = SCALE.httpItems;
const HTTPS_ITEMS = HTTP_ITEMS / 2;
const SEQUENTIAL_ITEMS = SCALE.sequentialItems;
const CONCURRENCY = 25;
/** Written by bench/sendOnceReal.js (scripts/bench.sh runs it first): SQLite, then PostgreSQL in queue mode. */
const SEND_ONCE_FILES = ['sqlite', 'queue'].map((database) => path.join(PACKAGE_ROOT, '.bench-build', `send-once-${database}.json`));

interface SendOnceReal {
	database: string;
	n8n: string;
	rounds: number;
	runs: Array<{ rows: number; on: boolean; round: number; seconds: number; sent: number; writes: number; values: number; bytes: number; callMs: number }>;
	recordSizes: Array<{ size: number; msPerCall: number; calls: number }>;
}

const BIG_ITEMS = SCALE.bigItems;

interface Sender {
	key: string;
	label: string;
	run: (items: number) => Promise<Sample>;
	items: number;
}

function senders(plain: Sandbox, secure: Sandbox): { throughput: Sender[]; secure: Sender[]; sequential: Sender[] } {
	const unthrottled = templateNode({ maxPerSecond: 0, maxConcurrency: CONCURRENCY });
	const inEngine = (sandbox: Sandbox, target: TargetNode) => (items: number) => runInEngine(sandbox, rows(items), target);
	return {
		throughput: [
			{ key: 'raw', label: 'Raw client, one keep-alive agent (axios, 25 sockets): baseline', run: (n) => runRawClient(plain, rows(n), CONCURRENCY), items: HTTP_ITEMS },
			{ key: 'close', label: 'Raw client, `Connection: close` on every request', run: (n) => runRawClient(plain, rows(n), CONCURRENCY, 'closeEach'), items: HTTP_ITEMS },
			{ key: 'agentEach', label: "Raw client, a new HTTP agent per request (as n8n's HTTP helper does)", run: (n) => runRawClient(plain, rows(n), CONCURRENCY, 'newAgentEach'), items: HTTP_ITEMS },
			{ key: 'floorDefault', label: "Helper-only node: two mapped fields, then n8n's `httpRequestWithAuthentication` with its default options, 25 at a time (bench/floorNode.ts)", run: inEngine(plain, floorTarget(CONCURRENCY)), items: HTTP_ITEMS },
			{ key: 'floor', label: 'Helper-only node, redirects not followed (as this node sends): **the reference for the node**', run: inEngine(plain, floorTarget(CONCURRENCY, false)), items: HTTP_ITEMS },
			{ key: 'node', label: 'Template Message node (Max Concurrent Requests 25, no rate limit)', run: inEngine(plain, unthrottled), items: HTTP_ITEMS },
			{ key: 'httpRequest', label: 'n8n HTTP Request node (defaults: every item at once)', run: inEngine(plain, httpRequestTarget(plain.url)), items: HTTP_ITEMS },
		],
		secure: [
			{ key: 'rawTls', label: 'Raw client, one keep-alive HTTPS agent: baseline', run: (n) => runRawClient(secure, rows(n), CONCURRENCY), items: HTTPS_ITEMS },
			{ key: 'floorTls', label: 'Helper-only node, redirects not followed', run: inEngine(secure, floorTarget(CONCURRENCY, false)), items: HTTPS_ITEMS },
			{ key: 'nodeTls', label: 'Template Message node', run: inEngine(secure, unthrottled), items: HTTPS_ITEMS },
		],
		sequential: [
			{ key: 'rawSeq', label: 'Raw keep-alive client, HTTP', run: (n) => runRawClient(plain, rows(n), 1), items: SEQUENTIAL_ITEMS },
			{ key: 'nodeSeq', label: 'Template Message node, HTTP', run: inEngine(plain, templateNode({ maxPerSecond: 0, maxConcurrency: 1 })), items: SEQUENTIAL_ITEMS },
			{ key: 'rawTlsSeq', label: 'Raw keep-alive client, HTTPS', run: (n) => runRawClient(secure, rows(n), 1), items: SEQUENTIAL_ITEMS },
			{ key: 'nodeTlsSeq', label: 'Template Message node, HTTPS', run: inEngine(secure, templateNode({ maxPerSecond: 0, maxConcurrency: 1 })), items: SEQUENTIAL_ITEMS },
		],
	};
}

/** Every sender once per round, the order rotated each round so that none always runs first or last. */
async function rounds(all: Sender[]): Promise<Map<string, Sample[]>> {
	const samples = new Map<string, Sample[]>(all.map((sender) => [sender.key, []]));
	// Warm-up, not kept: module loading and JIT, so that round 1 compares like with like.
	for (const sender of all) await sender.run(Math.min(200, sender.items));
	for (let round = 0; round < ROUNDS; round++) {
		for (let i = 0; i < all.length; i++) {
			const sender = all[(i + round) % all.length];
			samples.get(sender.key)!.push(await sender.run(sender.items));
		}
		console.log(`Round ${round + 1} of ${ROUNDS} done`);
	}
	return samples;
}

/** The template the build benchmark checks against and renders, parsed once as the node does. */
const BENCH_TEMPLATE = parseTemplate({ bodyText: 'Hi {{1}}, invoice {{2}} is attached.', headerFormat: 'image', buttons: [{ kind: 'quickReply', label: 'Paid' }, { kind: 'callPhone', label: 'Call us' }] })!;

function buildCostMicroseconds(count: number, withTemplate: boolean): number {
	const start = process.hrtime.bigint();
	for (let i = 0; i < count; i++) {
		const request = buildSendRequest({
			phoneNumber: `+62 812 ${String(i).padStart(8, '0')}`,
			templateCodeId: 'bench',
			components: { mode: 'fields', bodyValues: [`Customer ${i}`, 'INV-7'], header: { type: 'image', url: 'https://cdn.example.com/a.png' }, buttons: [{ kind: 'quickReply', index: 0, value: 'yes' }] },
			template: withTemplate ? BENCH_TEMPLATE : undefined,
		});
		if (withTemplate) renderPreview(request, BENCH_TEMPLATE);
	}
	return Number(process.hrtime.bigint() - start) / 1e3 / count;
}

async function main() {
	const plain = await startSandbox(5811, 20, 0);
	const secure = await startSandbox(5814, 20, 0, true);
	const groups = senders(plain, secure);
	const samples = await rounds([...groups.throughput, ...groups.secure, ...groups.sequential]);
	await plain.stop();
	await secure.stop();

	const limited = await startSandbox(5812, 20, 25);
	const paced = await runInEngine(limited, rows(SCALE.pacedItems), templateNode());
	const httpLimited = await runInEngine(limited, rows(SCALE.httpRequestLimitedItems), httpRequestTarget(limited.url));
	await limited.stop();
	const unlimited = await startSandbox(5815, 20, 0);
	const slowPaced = await runInEngine(unlimited, rows(SCALE.slowPacedItems), templateNode({ maxPerSecond: 2 }));
	await unlimited.stop();
	const sharedAccount = await startSandbox(5816, 20, 25, false, 0.8);
	const shared = await runInEngine(sharedAccount, rows(SCALE.sharedAccountItems), templateNode());
	await sharedAccount.stop();
	const status = await measureStatus();

	const big = await startSandbox(5813, 0, 0);
	const bigOptions = { maxPerSecond: 0, maxConcurrency: 50 };
	const { rssBefore, rssPeak, sample: bigRun } = await withPeakRss(() => runInEngine(big, rows(BIG_ITEMS), templateNode(bigOptions)));
	await big.stop();
	// Send Once is measured in the real n8n with its database (bench/sendOnceReal.js, run first by scripts/bench.sh).
	const sendOnce = SEND_ONCE_FILES.filter((file) => existsSync(file)).map((file) => JSON.parse(readFileSync(file, 'utf8')) as SendOnceReal);
	// Interleaved like the rounds above: without, with, without, with …
	const builds = Array.from({ length: 10 }, (_, i) => buildCostMicroseconds(SCALE.buildLoops, i % 2 === 1));
	const buildMicros = median(builds.filter((_, i) => i % 2 === 0));
	const checkedBuildMicros = median(builds.filter((_, i) => i % 2 === 1));

	const report = reportLines(samples, groups, { paced, slowPaced, shared, httpLimited, bigRun, rssBefore, rssPeak, sendOnce, buildMicros, checkedBuildMicros, status });
	console.log(report.join('\n'));
	writeFileSync(REPORT_FILE, `${report.join('\n')}\n`);
	const broken = brokenRuns(samples, { paced, slowPaced, shared, bigRun, status });
	if (broken.length > 0) throw new Error(`The benchmark's runs did not do what its figures assume:\n${broken.join('\n')}`);
}

/**
 * What would make a figure meaningless: a run of the node or a baseline that lost or doubled a
 * message (n8n's HTTP Request node against the limit is expected to lose most), or a Get Status
 * run with rows that got no status.
 */
function brokenRuns(samples: Map<string, Sample[]>, runs: Pick<Once, 'paced' | 'slowPaced' | 'shared' | 'bigRun' | 'status'>): string[] {
	const named: Array<[string, Sample]> = [...[...samples].flatMap(([key, list]) => list.map((sample): [string, Sample] => [key, sample])), ['paced', runs.paced], ['slowPaced', runs.slowPaced], ['shared', runs.shared], ['big', runs.bigRun]];
	return [
		...named.filter(([, sample]) => sample.lost > 0 || sample.duplicates > 0).map(([key, sample]) => `${key}: ${sample.lost} lost, ${sample.duplicates} twice of ${sample.items}`),
		...runs.status.filter((run) => run.wrong > 0).map((run) => `${run.label}: ${run.wrong} rows not as asked`),
	];
}

async function withPeakRss(run: () => Promise<Sample>): Promise<{ sample: Sample; rssBefore: number; rssPeak: number }> {
	const rssBefore = process.memoryUsage().rss;
	let rssPeak = rssBefore;
	const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 50);
	try {
		return { sample: await run(), rssBefore, rssPeak };
	} finally {
		clearInterval(sampler);
	}
}

interface Once {
	paced: Sample;
	slowPaced: Sample;
	shared: Sample;
	httpLimited: Sample;
	bigRun: Sample;
	rssBefore: number;
	rssPeak: number;
	sendOnce: SendOnceReal[];
	buildMicros: number;
	checkedBuildMicros: number;
	status: StatusRun[];
}

function reportLines(samples: Map<string, Sample[]>, groups: ReturnType<typeof senders>, once: Once): string[] {
	const of = (key: string, pick: (sample: Sample) => number) => samples.get(key)!.map(pick);
	const rate = (key: string) => of(key, (s) => s.perSecond);
	const cpu = (key: string) => of(key, (s) => s.cpuMsPerItem);
	const lines: string[] = [];
	const note = (line = '') => lines.push(line);
	const table = (list: Sender[], baseline: string) => {
		note('| Sender | Messages/s, median (range) | Ratio to the baseline, median (range) | CPU of this process per message | Connections per request | Average in flight | Peak in flight | Engine set-up | Lost, all rounds |');
		note('|---|---|---|---|---|---|---|---|---|');
		for (const sender of list) {
			note(
				`| ${sender.label} | ${spread(rate(sender.key))} | ${spread(ratios(rate(sender.key), rate(baseline)), 2)} | ${fixed(median(cpu(sender.key)), 2)} ms | ` +
					`${fixed(median(of(sender.key, (s) => s.connectionsPerRequest)), 2)} | ${fixed(median(of(sender.key, (s) => s.averageInFlight)))} | ${Math.max(...of(sender.key, (s) => s.peakInFlight))} | ${fixed(median(of(sender.key, (s) => s.setupSeconds * 1000)), 0)} ms | ${of(sender.key, (s) => s.lost).reduce((a, b) => a + b, 0)} |`,
			);
		}
	};
	const nodeOverFloor = ratios(rate('node'), rate('floor'));
	const cpuOverFloor = cpu('node').map((value, round) => value - cpu('floor')[round]);
	const tlsNodeOverFloor = ratios(rate('nodeTls'), rate('floorTls'));
	const latency = (key: string) => of(key, (s) => 1000 / s.perSecond);
	const cpuModel = os.cpus()[0]?.model ?? 'unknown CPU';

	note('# Benchmarks');
	note();
	note(`Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} × ${cpuModel}, ${fixed(os.totalmem() / 2 ** 30, 0)} GiB, Node ${process.versions.node}, n8n-core's engine.`);
	note(
		`${ROUNDS} rounds; in each, every sender below runs once, in an order rotated from round to round, against the sandbox API in a child process on 127.0.0.1 with 20 ms latency. ` +
			"Messages per second are over the sender's own work: for a node, its execution as n8n records it (from the start of `execute()`, building every item included, to its return), for the raw client its request loop; the engine's set-up is outside the timed region for every row and shown apart. " +
			'Ratios are taken within a round (both runs met the machine in the same state), then summarised. Connections per request and the average number of requests in flight are counted by the sandbox too, so each row\'s label is checked by a number.',
	);
	note();
	note(`## 1. Without a rate limit, HTTP (${HTTP_ITEMS.toLocaleString('en')} items, concurrency ${CONCURRENCY})`);
	note();
	table(groups.throughput, 'raw');
	note();
	note(
		`**The node against n8n's helper alone**, per round: ${nodeOverFloor.map((r) => fixed(r, 2)).join(', ')} (median ${fixed(median(nodeOverFloor), 2)}; goal ≥ 1.0 in every round: ${verdict(nodeOverFloor.every((r) => r >= 1))}). ` +
			`CPU per message above it: ${cpuOverFloor.map((d) => fixed(d, 2)).join(', ')} ms (median ${fixed(median(cpuOverFloor), 2)} ms; goal ≤ 0.1 ms: ${verdict(median(cpuOverFloor) <= 0.1)}).`,
	);
	note();
	note(`## 2. Without a rate limit, HTTPS (${HTTPS_ITEMS.toLocaleString('en')} items, concurrency ${CONCURRENCY}, a self-signed certificate trusted through NODE_EXTRA_CA_CERTS)`);
	note();
	table(groups.secure, 'rawTls');
	note();
	note(`The node against the helper alone over HTTPS, per round: ${tlsNodeOverFloor.map((r) => fixed(r, 2)).join(', ')} (median ${fixed(median(tlsNodeOverFloor), 2)}).`);
	note();
	note(`## 3. One message at a time (${SEQUENTIAL_ITEMS} items, concurrency 1): time per message`);
	note();
	note('| Sender | ms per message, median (range) | Connections per request |');
	note('|---|---|---|');
	for (const sender of groups.sequential) note(`| ${sender.label} | ${spread(latency(sender.key))} | ${fixed(median(of(sender.key, (s) => s.connectionsPerRequest)), 2)} |`);
	note();
	note('## 4. A provider that accepts 25 requests per second (sliding one-second window, 429 with Retry-After past it)');
	note();
	note('| Sender | Items | Accepted | Lost | Recipients messaged twice | 429 answers | Wall time | Target wall time | Sent per second, against what is allowed |');
	note('|---|---|---|---|---|---|---|---|---|');
	// The rate counts the gaps between sends: n messages leave in n - 1 gaps of 1/rate.
	const rateOf = (sample: Sample, allowed: number) => `${fixed((sample.items - sample.lost - 1) / sample.wallSeconds, 2)} of ${allowed}`;
	const limitedRow = (label: string, sample: Sample, target: string, allowed?: number) =>
		note(`| ${label} | ${sample.items} | ${sample.items - sample.lost} | ${sample.lost} | ${sample.duplicates} | ${sample.rateLimited} | ${fixed(sample.wallSeconds)} s | ${target} | ${allowed ? rateOf(sample, allowed) : '–'} |`);
	limitedRow('Template Message node, default settings', once.paced, `≤ ${fixed((1.1 * SCALE.pacedItems) / 25)} s`, 25);
	limitedRow('n8n HTTP Request node (defaults)', once.httpLimited, '–');
	limitedRow('Template Message node, Max Messages per Second 2 (no limit at the sandbox)', once.slowPaced, `≥ ${fixed((SCALE.slowPacedItems - 1) / 2)} s`, 2);
	limitedRow('Template Message node, default settings, the account shared with a sender using 80% of its 25 a second', once.shared, `≈ ${fixed((SCALE.sharedAccountItems - 1) / 5)} s`, 5);
	note();
	note('The wall time includes the engine\'s set-up; the rate is what was accepted over it, so it reads a little below the setting.');
	note();
	note(`## 5. ${BIG_ITEMS.toLocaleString('en')} items through the node (no latency, concurrency 50)`);
	note();
	note('| Measure | Value |');
	note('|---|---|');
	note(`| Sent, lost, failed | ${once.bigRun.items - once.bigRun.lost}, ${once.bigRun.lost}, ${once.bigRun.failed} |`);
	note(`| Messages/s | ${fixed(once.bigRun.perSecond)} |`);
	note(`| RSS before the run → peak during it | ${fixed(once.rssBefore / 2 ** 20, 0)} MiB → ${fixed(once.rssPeak / 2 ** 20, 0)} MiB |`);
	note(`| Peak RSS per item (includes the engine holding every input and output item) | ${fixed((once.rssPeak - once.rssBefore) / BIG_ITEMS, 0)} bytes |`);
	note(`| Payload build and validation (header, 2 body values, a button), per item, median of 5 × 100,000 | ${fixed(once.buildMicros, 2)} µs (target ≤ 5 µs) |`);
	note(`| The same, checked against the template (body text, header, buttons) and rendered as a preview | ${fixed(once.checkedBuildMicros, 2)} µs (target ≤ 5 µs) |`);
	note();
	note('## 6. Send Once in the real n8n, with its database');
	note();
	note(
		"bench/sendOnceReal.js: the real n8n (n8n-app/) with this package, a webhook posting the rows to the node (no pacing, the other options at their defaults) against the sandbox in a process of its own with 20 ms latency. Each size runs with Send Once (per recipient and template) on and off, interleaved, each run into a workflow of its own (an empty record). Seconds are from the POST to the webhook's answer (it answers when the node is done). A hook in n8n's processes (bench/storeStatsHook.js) counts what n8n writes to its `processed_data` table and times each store call.",
	);
	for (const real of once.sendOnce) {
		note();
		note(`### ${real.database}, n8n ${real.n8n}, ${real.rounds} round(s)`);
		note();
		note('| Rows | Send Once off, s | Send Once on, s | On ÷ off, per round | Writes to processed_data | Values written | Bytes written | Bytes per message | Time in store calls |');
		note('|---|---|---|---|---|---|---|---|---|');
		for (const rowCount of [...new Set(real.runs.map((run) => run.rows))]) {
			const of = (on: boolean) => real.runs.filter((run) => run.rows === rowCount && run.on === on).sort((a, b) => a.round - b.round);
			const [off, on] = [of(false), of(true)];
			const ratios = on.map((run, i) => run.seconds / off[i].seconds);
			const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;
			note(
				`| ${rowCount.toLocaleString('en')} | ${off.map((run) => fixed(run.seconds)).join(', ')} | ${on.map((run) => fixed(run.seconds)).join(', ')} | ${ratios.map((ratio) => fixed(ratio, 2)).join(', ')} | ${fixed(mean(on.map((run) => run.writes)), 0)} | ${fixed(mean(on.map((run) => run.values)), 0)} | ${fixed(mean(on.map((run) => run.bytes)) / 2 ** 20, 1)} MiB | ${fixed(mean(on.map((run) => run.bytes)) / rowCount, 0)} | ${fixed(mean(on.map((run) => run.callMs)) / 1000, 1)} s |`,
			);
		}
		const lost = real.runs.filter((run) => run.sent !== run.rows).length;
		note();
		note(`Runs in which the sandbox did not receive every row exactly: ${lost}.`);
		if (real.recordSizes.length > 0) {
			note();
			note('One store call against a record of a given size (seeded by n8n\'s Remove Duplicates node in the same workflow, then 500 messages with Send Once):');
			note();
			note('| Values in the record | ms per store call | Calls for 500 messages |');
			note('|---|---|---|');
			for (const record of real.recordSizes) note(`| ${record.size.toLocaleString('en')} | ${fixed(record.msPerCall, 1)} | ${record.calls} |`);
		}
	}
	if (once.sendOnce.length === 0) note('Not measured in this run (bench/sendOnceReal.js did not run).');
	note();
	for (const line of statusReportLines([{ busyJobs: 0, rounds: [once.status] }])) note(line);
	note();
	note("Queue-mode workers sharing one account are measured apart, in the real n8n with PostgreSQL (`node bench/queuePace.js`, several minutes per worker count): their figures are in [sending.md](sending.md#queue-mode-scale-out).");
	note();
	note('## Which ceiling is whose');
	note();
	note(
		`- **n8n's helper.** Community nodes must send through \`httpRequestWithAuthentication\` (it adds proxy, SSRF and cancellation handling), and it builds a new HTTP agent for every request, so no connection is reused: ${fixed(median(of('floor', (s) => s.connectionsPerRequest)), 2)} connections per request for the helper-only node, against ${fixed(median(of('raw', (s) => s.connectionsPerRequest)), 2)} for the keep-alive client. ` +
			`Called with its default options it also sends through follow-redirects: the helper-only node then reaches ${fixed(median(ratios(rate('floorDefault'), rate('raw'))), 2)} ×, against ${fixed(median(ratios(rate('floor'), rate('raw'))), 2)} × with redirects off. ` +
			`The raw client shows what that alone costs: with a new agent per request it reaches ${fixed(median(ratios(rate('agentEach'), rate('raw'))), 2)} × the keep-alive client, while \`Connection: close\` (also a new connection per request, one agent) reaches ${fixed(median(ratios(rate('close'), rate('raw'))), 2)} ×. ` +
			`Over HTTPS every request also pays a TLS handshake: the helper-only node reaches ${fixed(median(ratios(rate('floorTls'), rate('rawTls'))), 2)} × a keep-alive HTTPS client, and one message at a time the node takes ${fixed(median(latency('nodeTlsSeq')))} ms per message against ${fixed(median(latency('rawTlsSeq')))} ms.`,
	);
	note(
		`- **The node.** Everything beyond the helper-only node is the node's own: reading its other parameters, checking and building each item, pacing, the attempt deadline, reading and classifying a bounded answer, the Retry On Fail memory. That is the ratio and the CPU difference under section 1.`,
	);
	note(
		`- **What it means for users.** Against a provider that limits an account to 25 messages a second (section 4), the node's unthrottled throughput is about ${fixed(median(rate('node')) / 25, 0)} times what the provider accepts; pacing, not speed, decides the run's length.`,
	);
	note();
	note(
		"Memory grows with the number of items because n8n keeps every input and output item of a run in memory; the node itself keeps each item's request body and, for Retry On Fail, one short entry per sent item while the run lasts (kept afterwards, until the node's next batch, unless one try sent every item).",
	);
	return lines;
}

main().then(
	() => process.exit(0),
	(error) => {
		console.error(error);
		process.exit(1);
	},
);
