/**
 * The senders the benchmark compares, each sending the same rows to a sandbox API (a child
 * process) and timed the same way: from the start of the sender's own work to its end. For a node
 * in n8n's engine that is the node's execution as n8n records it (`executionTime`: from the start
 * of execute(), building every item included, to its return), so engine set-up is outside the
 * timed region and reported apart; for the raw client, its request loop.
 */
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import axios from 'axios';
import type { IDataObject, INodeType, IVersionedNodeType } from 'n8n-workflow';

import { buildSendRequest } from '../nodes/TemplateMessage/request/payload';
import type { RunResult } from '../test/helpers/engine';
import { CREDENTIAL_TYPE, loadHttpRequestNode, NODE_TYPE, PACKAGE_ROOT, runWorkflow } from '../test/helpers/engine';
import { FLOOR_NODE_TYPE, floorNode } from './floorNode';

export const TOKEN = 'sandbox-token';
const SOURCE = 'Rows';
const TARGET = 'Send';

export interface Sandbox {
	url: string;
	stop(): Promise<void>;
}

const stack = require(path.join(PACKAGE_ROOT, 'scripts', 'stack'));
const { selfSignedCert } = require(path.join(PACKAGE_ROOT, 'scripts', 'selfSignedCert'));

/** HTTPS with the certificate bench.sh made and handed to this process in NODE_EXTRA_CA_CERTS. */
/** `sharedShare`: the share of `rateLimit` another sender on the account uses (see sandbox/server.js). */
export async function startSandbox(port: number, latencyMs: number, rateLimit: number, secure = false, sharedShare = 0, resetForm = 'fraction'): Promise<Sandbox> {
	const tls = secure ? selfSignedCert(path.join(PACKAGE_ROOT, '.bench-build', 'tls')) : undefined;
	return await stack.startSandboxProcess({ port, token: TOKEN, latencyMs, rateLimit, sharedShare, resetForm, tls });
}

export interface Row {
	phone: string;
	name: string;
}
export const rows = (count: number, offset = 0): Row[] =>
	Array.from({ length: count }, (_, i) => ({ phone: `62812${String(offset + i).padStart(8, '0')}`, name: `Customer ${offset + i}` }));

/** One measured run of one sender. */
export interface Sample {
	items: number;
	/** Messages per second over the timed region. */
	perSecond: number;
	/** The sender's whole run, engine set-up included. */
	wallSeconds: number;
	/** The part of the wall time outside the timed region: the engine's set-up and bookkeeping. */
	setupSeconds: number;
	/** CPU time of this process per message (the sandbox runs in another). */
	cpuMsPerItem: number;
	connectionsPerRequest: number;
	averageInFlight: number;
	peakInFlight: number;
	lost: number;
	duplicates: number;
	failed: number;
	rateLimited: number;
}

/** What a run reports of itself: the timed region, and how many items failed. */
interface Timed {
	seconds: number;
	failed: number;
}

async function measured(sandbox: Sandbox, items: Row[], run: () => Promise<Timed>): Promise<Sample> {
	const start = process.hrtime.bigint();
	const cpuBefore = process.cpuUsage();
	const { seconds, failed } = await run();
	const cpu = process.cpuUsage(cpuBefore);
	const wallSeconds = Number(process.hrtime.bigint() - start) / 1e9;
	const { data } = await axios.get(`${sandbox.url}/api/messages`, { maxContentLength: Infinity });
	await axios.delete(`${sandbox.url}/api/messages`);
	const stats = data.stats as Record<string, number>;
	const perRecipient = new Map<string, number>();
	for (const message of data.messages as Array<{ request: { phone_number: string } }>) {
		perRecipient.set(message.request.phone_number, (perRecipient.get(message.request.phone_number) ?? 0) + 1);
	}
	return {
		items: items.length,
		perSecond: stats.accepted / seconds,
		wallSeconds,
		setupSeconds: wallSeconds - seconds,
		cpuMsPerItem: (cpu.user + cpu.system) / 1000 / items.length,
		connectionsPerRequest: stats.connections / stats.received,
		averageInFlight: stats.inFlightMs / stats.windowMs,
		peakInFlight: stats.peakInFlight,
		lost: items.length - perRecipient.size,
		duplicates: [...perRecipient.values()].filter((count) => count > 1).length,
		failed,
		rateLimited: stats.rateLimited,
	};
}

/**
 * How the raw client connects: one keep-alive agent (the baseline); an agent that keeps no
 * connection (`Connection: close`, so each request opens its own, which the sandbox's connection
 * count checks); or a new agent for every request, which is what n8n's HTTP helper does.
 */
export type Connections = 'keepAlive' | 'closeEach' | 'newAgentEach';

export async function runRawClient(sandbox: Sandbox, items: Row[], concurrency: number, connections: Connections = 'keepAlive'): Promise<Sample> {
	const secure = sandbox.url.startsWith('https:');
	const makeAgent = (keepAlive: boolean) => (secure ? new https.Agent({ keepAlive, maxSockets: concurrency }) : new http.Agent({ keepAlive, maxSockets: concurrency }));
	const shared = makeAgent(connections === 'keepAlive');
	const client = axios.create({ headers: { authorization: TOKEN, ...(connections === 'closeEach' ? { connection: 'close' } : {}) } });
	let next = 0;
	const sample = await measured(sandbox, items, async () => {
		const start = process.hrtime.bigint();
		await Promise.all(
			Array.from({ length: concurrency }, async () => {
				while (next < items.length) {
					const row = items[next++];
					const body = buildSendRequest({ phoneNumber: row.phone, templateCodeId: 'bench', components: { mode: 'fields', bodyValues: [row.name], header: { type: 'none' }, buttons: [] } });
					const agent = connections === 'newAgentEach' ? makeAgent(false) : shared;
					await client.post(`${sandbox.url}/api/v2/push/message`, body, { httpAgent: agent, httpsAgent: agent });
				}
			}),
		);
		return { seconds: Number(process.hrtime.bigint() - start) / 1e9, failed: 0 };
	});
	shared.destroy();
	return sample;
}

export interface TargetNode {
	type: string;
	typeVersion: number;
	parameters: IDataObject;
	onError?: string;
	extraTypes?: Record<string, INodeType | IVersionedNodeType>;
}

export const templateNode = (options: IDataObject = {}, parameters: IDataObject = {}): TargetNode => ({
	type: NODE_TYPE,
	typeVersion: 1,
	parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'bench', bodyValues: { values: [{ text: '={{ $json.name }}' }] }, ...parameters, options },
	onError: 'continueRegularOutput',
});

/** `followRedirects: false` calls the helper as this package's node does (n8n then skips follow-redirects). */
export const floorTarget = (concurrency: number, followRedirects = true): TargetNode => ({
	type: FLOOR_NODE_TYPE,
	typeVersion: 1,
	parameters: { phoneNumber: '={{ $json.phone }}', text: '={{ $json.name }}' },
	extraTypes: { [FLOOR_NODE_TYPE]: floorNode(concurrency, followRedirects) },
});

export const httpRequestTarget = (url: string): TargetNode => ({
	type: 'n8n-nodes-base.httpRequest',
	typeVersion: 4.2,
	parameters: {
		method: 'POST',
		url: `${url}/api/v2/push/message`,
		sendHeaders: true,
		headerParameters: { parameters: [{ name: 'Authorization', value: TOKEN }] },
		sendBody: true,
		specifyBody: 'json',
		jsonBody:
			'={{ JSON.stringify({ phone_number: $json.phone, message: { type: "template", template: { template_code_id: "bench", payload: [{ position: "body", parameters: [{ type: "text", text: $json.name }] }] } } }) }}',
		options: {},
	},
	onError: 'continueRegularOutput',
	extraTypes: loadHttpRequestNode(),
});

function workflow(items: Row[], target: TargetNode) {
	return {
		nodes: [
			{ id: 'rows', name: SOURCE, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0] as [number, number], parameters: {} },
			{
				id: 'send',
				name: TARGET,
				type: target.type,
				typeVersion: target.typeVersion,
				position: [200, 0] as [number, number],
				parameters: target.parameters as never,
				onError: target.onError as never,
				credentials: { [CREDENTIAL_TYPE]: { id: 'c', name: 'c' } },
			},
		],
		connections: { [SOURCE]: { main: [[{ node: TARGET, type: 'main' as const, index: 0 }]] } },
		pinData: { [SOURCE]: items.map((json) => ({ json: { ...json } })) },
	};
}

/** The target node in n8n's engine, behind a manual trigger with the rows pinned. */
export async function runInEngine(sandbox: Sandbox, items: Row[], target: TargetNode): Promise<Sample> {
	return await measured(sandbox, items, async () => {
		const result: RunResult = await runWorkflow(workflow(items, target), { [CREDENTIAL_TYPE]: { baseUrl: sandbox.url, token: TOKEN } }, target.extraTypes ?? {});
		const task = result.run.data.resultData.runData[TARGET][0];
		return { seconds: task.executionTime / 1000, failed: result.output(TARGET).filter((item) => item.json.error !== undefined).length };
	});
}
