/**
 * The sandbox's status lookup (`GET /api/v2/message/{msgid}/status`) on an injected clock: the
 * scripted lifecycles, unknown ids, the token and the rate limit shared with sends, and the node's
 * Get Status reading it in n8n's engine. No verdict depends on how fast the machine is.
 */
import type { AddressInfo } from 'node:net';
import axios from 'axios';

import { runSendNode, SEND_NODE } from '../helpers/engine';

const { createSandbox } = require('../../sandbox/server') as {
	createSandbox: (options: { token: string; rateLimit?: number; now?: () => number }) => { server: import('node:http').Server };
};

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const body = (phone: string) => ({ phone_number: phone, message: { type: 'template', template: { template_code_id: 'tpl-any', payload: [] } } });

async function started(options: { rateLimit?: number } = {}) {
	let time = T0;
	const sandbox = createSandbox({ token: 'sandbox-token', ...options, now: () => time });
	await new Promise<void>((resolve) => sandbox.server.listen(0, '127.0.0.1', resolve));
	const baseUrl = `http://127.0.0.1:${(sandbox.server.address() as AddressInfo).port}`;
	const headers = { authorization: 'sandbox-token' };
	return {
		baseUrl,
		at: (ms: number) => (time = T0 + ms),
		send: async (phone: string) => (await axios.post(`${baseUrl}/api/v2/push/message`, body(phone), { headers })).data.msgid as string,
		status: async (msgid: string, authorization = 'sandbox-token') =>
			await axios.get(`${baseUrl}/api/v2/message/${encodeURIComponent(msgid)}/status`, { headers: authorization ? { authorization } : {}, validateStatus: () => true }),
		stats: async () => (await axios.get(`${baseUrl}/api/messages`)).data.stats as Record<string, number>,
		close: async () => await new Promise((resolve) => sandbox.server.close(resolve)),
	};
}

const iso = (ms: number) => new Date(T0 + ms).toISOString();

test('each accepted message follows its script: submitted, delivered at 2 s, read at 4 s; 1340 rejected; 0000 stuck', async () => {
	const sandbox = await started();
	try {
		const [normal, outside, stuck] = [await sandbox.send('6281234567890'), await sandbox.send('6281200001340'), await sandbox.send('6281200000000')];
		const latest = async (msgid: string) => {
			const { status, data } = await sandbox.status(msgid);
			expect(status).toBe(200);
			return [data.history_status.slice(-1)[0].status, data.additional_info ?? null];
		};
		const timeline: unknown[] = [];
		for (const ms of [0, 1999, 2000, 3999, 4000, 3_600_000]) {
			sandbox.at(ms);
			timeline.push([ms, await latest(normal), await latest(outside), await latest(stuck)]);
		}
		const rejected = [['rejected', { code: 1340, reason: 'Send Outside Allowed Window' }]];
		expect(timeline).toEqual([
			[0, ['submitted', null], ['submitted', null], ['submitted', null]],
			[1999, ['submitted', null], ['submitted', null], ['submitted', null]],
			[2000, ['delivered', null], ...rejected, ['submitted', null]],
			[3999, ['delivered', null], ...rejected, ['submitted', null]],
			[4000, ['read', null], ...rejected, ['submitted', null]],
			[3_600_000, ['read', null], ...rejected, ['submitted', null]],
		]);
		const { data } = await sandbox.status(normal);
		expect(data).toEqual({
			msgid: normal,
			phone_number: '+6281234567890',
			history_status: [
				{ timestamp: iso(0), status: 'submitted' },
				{ timestamp: iso(2000), status: 'delivered' },
				{ timestamp: iso(4000), status: 'read' },
			],
		});
		// The page lists the status each message has now.
		const page = String((await axios.get(`${sandbox.baseUrl}/`)).data);
		expect(['<td>read</td>', '<td>rejected</td>', '<td>submitted</td>', 'Status lookups (<code>GET /api/v2/message/{msgid}/status</code>'].filter((text) => !page.includes(text))).toEqual([]);
	} finally {
		await sandbox.close();
	}
});

test('an unknown msgid is 404 code 33; the token is checked as for a send; lookups count against the same rate limit', async () => {
	const sandbox = await started({ rateLimit: 2 });
	try {
		const msgid = await sandbox.send('6281234567890');
		const codeOf = async (answer: Promise<{ status: number; data: { errors?: Array<{ code: number }> } }>) => {
			const { status, data } = await answer;
			return [status, data.errors?.[0].code ?? null];
		};
		expect(await codeOf(sandbox.status(msgid, ''))).toEqual([401, 43]);
		expect(await codeOf(sandbox.status(msgid, 'wrong'))).toEqual([401, 45]);
		// The send took one of the two a second; one lookup is left, then 429 until the window moves on.
		expect(await codeOf(sandbox.status('no-such-id'))).toEqual([404, 33]);
		expect(await codeOf(sandbox.status(msgid))).toEqual([429, 9]);
		sandbox.at(1000);
		expect(await codeOf(sandbox.status(msgid))).toEqual([200, null]);
		// The benchmark counts a lookup's 429s apart from a send's.
		expect(await sandbox.stats()).toMatchObject({ lookups: 5, lookupsRateLimited: 1, rateLimited: 0 });
	} finally {
		await sandbox.close();
	}
});

test("the node's Get Status reads the sandbox's lifecycles in n8n's engine", async () => {
	const sandbox = await started();
	try {
		const phones = ['6281234567890', '6281200001340', '6281200000000'];
		const msgids = [];
		for (const phone of phones) msgids.push(await sandbox.send(phone));
		sandbox.at(5000);
		const result = await runSendNode({
			baseUrl: sandbox.baseUrl,
			token: 'sandbox-token',
			items: [...msgids.map((msgid) => ({ msgid })), { msgid: 'unknown' }],
			parameters: { operation: 'getStatus' },
			typeVersion: 2,
		});
		expect(result.output(SEND_NODE).map(({ json }) => [json.deliveryStatus, json.final, json.failureCode, json.failureReason, json.readAt, json.notFound])).toEqual([
			['read', true, null, null, iso(4000), false],
			['rejected', true, 1340, 'Send Outside Allowed Window', null, false],
			['submitted', false, null, null, null, false],
			[null, null, null, null, null, true],
		]);
	} finally {
		await sandbox.close();
	}
});
