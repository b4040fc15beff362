/**
 * Get Status in n8n's engine against a recording local API: every status form the provider's
 * answer can take, unknown msgids, throttling, a refused token, hostile answers, msgids built to
 * change the path asked, rows a Send did not take, Continue On Fail, the token kept out of every
 * output, and a Send's output piped into Get Status. Verdicts by order and counts, never by time.
 */
import path from 'node:path';
import type { IDataObject, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { ApiServer, RecordedRequest, Reply, Responder } from '../helpers/apiServer';
import { acceptAll, startApiServer } from '../helpers/apiServer';
import type { RunResult, SendNodeRun } from '../helpers/engine';
import { CREDENTIAL_TYPE, ENGINE, NODE_TYPE, PACKAGE_ROOT, runSendNode, runWorkflow, SEND_NODE, TEST_TOKEN } from '../helpers/engine';
import { pacersUsed, watchPace } from '../helpers/flowWatch';

const COLUMNS = [
	'deliveryStatus',
	'statusAt',
	'deliveredAt',
	'readAt',
	'failureCode',
	'failureReason',
	'final',
	'notFound',
	'reason',
	'error',
	'history',
	'historyDropped',
	'msgid',
	'phone_number',
];

const servers: ApiServer[] = [];
afterEach(async () => {
	await Promise.all(servers.splice(0).map((server) => server.close()));
});
async function server(responder: Responder): Promise<ApiServer> {
	const started = await startApiServer(responder);
	servers.push(started);
	return started;
}

const STATUS_PATH = /^\/api\/v2\/message\/([^/]*)\/status$/;
/** The msgid a status request asked for, decoded; undefined for any other request. */
const askedFor = (request: RecordedRequest) => {
	const match = STATUS_PATH.exec(request.url);
	return match ? decodeURIComponent(match[1]) : undefined;
};
const lookups = (api: ApiServer) => api.requests.filter((request) => request.method === 'GET');

/** An API whose status answers come from `answers` by msgid (404 with code 33 for any other). */
function statusApi(answers: Record<string, Reply | ((index: number) => Reply)>): Responder {
	return (request, index) => {
		if (request.method === 'POST') return acceptAll(request, index);
		const msgid = askedFor(request);
		const answer = msgid === undefined ? undefined : answers[msgid];
		if (answer === undefined) return { status: 404, body: { success: false, errors: [{ message: 'Data does not exist', code: 33 }] } };
		return typeof answer === 'function' ? answer(index) : answer;
	};
}

const history = (...entries: Array<[unknown, unknown]>) => entries.map(([timestamp, status]) => ({ timestamp, status }));
const ok = (msgid: string, entries: unknown, extra: IDataObject = {}): Reply => ({
	status: 200,
	body: { msgid, phone_number: '+6281234567890', history_status: entries, ...extra },
});

async function getStatus(api: ApiServer, items: IDataObject[], run: Partial<SendNodeRun> = {}): Promise<RunResult> {
	return await runSendNode({ baseUrl: api.baseUrl, items, parameters: { operation: 'getStatus' }, typeVersion: 2, ...run });
}
const rowsOf = (result: RunResult) => result.output(SEND_NODE).map((item) => item.json);
const hintsOf = (result: RunResult) => (result.run.data.resultData.runData[SEND_NODE][0].hints ?? []).map((hint) => hint.message).join(' ');

/** A row without an error has no `error` (n8n 1.x would take even a null one for a failure, and run the node again). */
const columnsOf = (json: IDataObject) => (typeof json.error === 'string' ? COLUMNS : COLUMNS.filter((column) => column !== 'error'));

function expectShape(output: INodeExecutionData[]): void {
	output.forEach((item, index) => {
		expect(Object.keys(item.json)).toEqual(columnsOf(item.json));
		expect(item.pairedItem).toEqual({ item: index });
	});
}

describe('every form of status answer', () => {
	test('documented statuses, an unknown word, timestamps as ISO text, epoch seconds and milliseconds, an unsorted history', async () => {
		const api = await server(
			statusApi({
				submitted: ok('submitted', history(['2024-03-01T03:22:58.073Z', 'submitted'])),
				delivered: ok('delivered', history(['2024-03-01T03:22:58.073Z', 'submitted'], ['2024-03-01T03:23:01.000Z', 'delivered'])),
				read: ok('read', history(['2024-03-01T03:22:58.073Z', 'submitted'], ['2024-03-01T03:23:01.000Z', 'delivered'], ['2024-03-01T03:30:00.000Z', 'read'])),
				rejected: ok('rejected', history(['2024-03-01T03:22:58.073Z', 'submitted'], ['2024-03-01T03:22:59.000Z', 'rejected']), {
					additional_info: { code: 1340, reason: 'Send Outside Allowed Window' },
				}),
				failed: ok('failed', history(['2024-03-01T03:22:58Z', 'submitted'], ['2024-03-01T03:22:59Z', 'FAILED']), { additional_info: { code: '131026', reason: 'Message undeliverable' } }),
				word: ok('word', history(['2024-03-01T03:22:58Z', '  Queued_At_Carrier  '])),
				seconds: ok('seconds', history([1709263378, 'submitted'], ['1709263381', 'delivered'])),
				millis: ok('millis', history([1709263378073, 'submitted'], ['1709263381000', 'delivered'], [1709263400000, 'read'])),
				// Newest first, and a time without a zone (read as UTC, whatever this machine's zone).
				unsorted: ok('unsorted', history(['2024-03-01 03:30:00', 'read'], ['2024-03-01T03:22:58.073Z', 'submitted'], ['2024-03-01T03:23:01+00:00', 'delivered'])),
			}),
		);
		const ids = ['submitted', 'delivered', 'read', 'rejected', 'failed', 'word', 'seconds', 'millis', 'unsorted'];
		const result = await getStatus(api, ids.map((msgid) => ({ msgid })));
		const output = result.output(SEND_NODE);
		expectShape(output);
		const pick = (row: IDataObject) => [row.deliveryStatus, row.final, row.statusAt, row.deliveredAt, row.readAt, row.failureCode, row.failureReason];
		expect(output.map((item) => pick(item.json))).toEqual([
			['submitted', false, '2024-03-01T03:22:58.073Z', null, null, null, null],
			['delivered', false, '2024-03-01T03:23:01.000Z', '2024-03-01T03:23:01.000Z', null, null, null],
			['read', true, '2024-03-01T03:30:00.000Z', '2024-03-01T03:23:01.000Z', '2024-03-01T03:30:00.000Z', null, null],
			['rejected', true, '2024-03-01T03:22:59.000Z', null, null, 1340, 'Send Outside Allowed Window'],
			['failed', true, '2024-03-01T03:22:59.000Z', null, null, 131026, 'Message undeliverable'],
			['queued_at_carrier', false, '2024-03-01T03:22:58.000Z', null, null, null, null],
			['delivered', false, '2024-03-01T03:23:01.000Z', '2024-03-01T03:23:01.000Z', null, null, null],
			['read', true, '2024-03-01T03:23:20.000Z', '2024-03-01T03:23:01.000Z', '2024-03-01T03:23:20.000Z', null, null],
			['read', true, '2024-03-01T03:30:00.000Z', '2024-03-01T03:23:01.000Z', '2024-03-01T03:30:00.000Z', null, null],
		]);
		const unsorted = output[8].json;
		expect(unsorted.history).toEqual([
			{ status: 'submitted', at: '2024-03-01T03:22:58.073Z' },
			{ status: 'delivered', at: '2024-03-01T03:23:01.000Z' },
			{ status: 'read', at: '2024-03-01T03:30:00.000Z' },
		]);
		for (const row of output.map((item) => item.json)) {
			expect([row.notFound, row.reason, row.error ?? null, row.historyDropped, row.phone_number]).toEqual([false, null, null, 0, '6281234567890']);
		}
		expect(lookups(api).map(askedFor)).toEqual(expect.arrayContaining(ids));
		expect(lookups(api)).toHaveLength(ids.length);
		// Every lookup carried the credential's token, as a send does.
		expect(new Set(lookups(api).map((request) => request.headers.authorization))).toEqual(new Set([TEST_TOKEN]));
		if (ENGINE.keepsExecutionHints) {
			expect(hintsOf(result)).toContain('Get Status: 3 read, 2 delivered, 1 submitted, 1 failed: Message undeliverable, 1 rejected: Send Outside Allowed Window, 1 queued_at_carrier');
		}
	});

	test("an unknown msgid is notFound for that row alone, in whatever form the API's error says it", async () => {
		const api = await server(
			statusApi({
				known: ok('known', history(['2024-03-01T03:22:58Z', 'delivered'])),
				otherCode404: { status: 404, body: { errors: [{ message: 'Message not found' }] } },
				code33as400: { status: 400, body: { success: false, errors: [{ message: 'Data does not exist', code: 33 }] } },
				code33as200: { status: 200, body: { success: false, errors: [{ message: 'Data does not exist', code: 33 }] } },
			}),
		);
		const result = await getStatus(api, [{ msgid: 'gone', phone_number: '6281111' }, { msgid: 'known' }, { msgid: 'otherCode404' }, { msgid: 'code33as400' }, { msgid: 'code33as200' }]);
		const rows = rowsOf(result);
		expectShape(result.output(SEND_NODE));
		expect(rows.map((row) => [row.deliveryStatus, row.notFound, row.final, 'error' in row])).toEqual([
			[null, true, null, false],
			['delivered', false, false, false],
			[null, true, null, false],
			[null, true, null, false],
			[null, true, null, false],
		]);
		expect(rows[4].reason).toMatch(/^The API does not know this msgid \(HTTP 200: Data does not exist \(code 33\)\)/);
		expect(rows[0].reason).toMatch(/^The API does not know this msgid \(HTTP 404: Data does not exist \(code 33\)\)/);
		// The row keeps the input's msgid and phone number when the answer has none.
		expect([rows[0].msgid, rows[0].phone_number]).toEqual(['gone', '6281111']);
		expect(lookups(api)).toHaveLength(5);
		if (ENGINE.keepsExecutionHints) expect(hintsOf(result)).toContain('Get Status: 1 delivered, 4 not found');
	});

	test.each<[string, Reply, string]>([
		['an HTML page', { status: 404, rawBody: '<html><body>Not Found</body></html>', headers: { 'content-type': 'text/html' } }, 'an HTML page'],
		["JSON that is not the API's error", { status: 404, body: { message: 'Not Found', path: '/api/v2/message/m-0/status' } }, "JSON without the API's error code"],
		['an empty body', { status: 404, rawBody: '' }, 'an empty body'],
	])("a 404 with %s is a wrong Base URL, not an unknown msgid: the lookups stop and every row says so", async (_name, reply, said) => {
		const items = Array.from({ length: 30 }, (_, index) => ({ msgid: `m-${index}` }));
		const noEndpoint = `The status endpoint was not found at the credential's Base URL: the server answered HTTP 404 with ${said}, not the API's error`;

		const api = await server((request, index) => (request.method === 'POST' ? acceptAll(request, index) : reply));
		const thrown = await getStatus(api, items);
		expect(thrown.nodeError(SEND_NODE)?.message).toMatch(new RegExp(`^${escape(noEndpoint)} \\[item \\d+\\]$`));
		expect(thrown.nodeError(SEND_NODE)?.description).toMatch(/Check the Base URL in the Template Message API credential/);
		expect(lookups(api).length).toBeLessThanOrEqual(10);

		const again = await server((request, index) => (request.method === 'POST' ? acceptAll(request, index) : reply));
		const continued = await getStatus(again, items, { onError: 'continueRegularOutput' });
		expectShape(continued.output(SEND_NODE));
		const rows = rowsOf(continued);
		// No row is "not found": the msgids were never asked of the API.
		expect(rows.filter((row) => row.notFound !== false || row.deliveryStatus !== null)).toEqual([]);
		const asked = rows.filter((row) => String(row.error).startsWith(noEndpoint));
		const held = rows.filter((row) => new RegExp(`^Not looked up: the status endpoint was not found at the credential's Base URL \\(item \\d+: the server answered HTTP 404 with ${escape(said)}, not the API's error\\) \\[item \\d+\\]$`).test(String(row.error)));
		expect(asked.length).toBe(lookups(again).length);
		expect(asked.length + held.length).toBe(30);
		// At most the lookups already on their way (10 at once) when the first 404 came back.
		expect(lookups(again).length).toBeLessThanOrEqual(10);
	});
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the same care as a send', () => {
	test('a 429 with Retry-After is waited out and asked again; the row is the later answer', async () => {
		const api = await server(
			statusApi({
				slow: (index) =>
					index === 0
						? { status: 429, body: { errors: [{ message: 'Too many requests', code: 9 }] }, headers: { 'Retry-After': '1' } }
						: ok('slow', history(['2024-03-01T03:22:58Z', 'read'])),
			}),
		);
		const result = await getStatus(api, [{ msgid: 'slow' }]);
		expect(rowsOf(result).map((row) => [row.deliveryStatus, row.error ?? null])).toEqual([['read', null]]);
		expect(lookups(api).map((request) => [askedFor(request), request.answer])).toEqual([
			['slow', 429],
			['slow', 200],
		]);
	});

	test("the API's code in a 2xx decides as at any status: code 9 is waited out and asked again, a refused token (45) stops the lookups after it", async () => {
		const throttledOnce = await server(
			statusApi({
				slow: (index) => (index === 0 ? { status: 200, body: { success: false, errors: [{ message: 'Too many requests', code: 9 }] }, headers: { 'Retry-After': '1' } } : ok('slow', history(['2024-03-01T03:22:58Z', 'read']))),
			}),
		);
		expect(rowsOf(await getStatus(throttledOnce, [{ msgid: 'slow' }])).map((row) => [row.deliveryStatus, row.error ?? null])).toEqual([['read', null]]);
		expect(lookups(throttledOnce).map((request) => request.answer)).toEqual([200, 200]);

		const refused = await server(() => ({ status: 200, body: { success: false, errors: [{ message: 'Token invalid', code: 45 }] } }));
		const items = Array.from({ length: 5 }, (_, index) => ({ msgid: `m-${index}` }));
		const rows = rowsOf(await getStatus(refused, items, { onError: 'continueRegularOutput', parameters: { operation: 'getStatus', statusOptions: { maxConcurrency: 1 } } }));
		expect(lookups(refused)).toHaveLength(1);
		expect(rows[0].error).toMatch(/Token invalid \(code 45\)/);
		expect(rows.slice(1).every((row) => /^Not looked up: the API refused the lookup at item 0 \(HTTP 200: Token invalid \(code 45\)\)/.test(String(row.error)))).toBe(true);

		// The API's internal error (13) in a 2xx is the API failing, as in a 500: asked again, with or without success: false.
		for (const failure of [{ success: false, errors: [{ message: 'Internal error', code: 13 }] }, { errors: [{ message: 'Internal error', code: 13 }] }]) {
			const failedOnce = await server(statusApi({ busy: (index) => (index === 0 ? { status: 200, body: failure } : ok('busy', history(['2024-03-01T03:22:58Z', 'delivered']))) }));
			expect(rowsOf(await getStatus(failedOnce, [{ msgid: 'busy' }])).map((row) => [row.deliveryStatus, row.error ?? null])).toEqual([['delivered', null]]);
			expect(lookups(failedOnce)).toHaveLength(2);
		}

		// Every try answered so: the row names the API's internal error.
		const failing = await server(() => ({ status: 200, body: { errors: [{ message: 'Internal error', code: 13 }] } }));
		const failingRows = rowsOf(await getStatus(failing, [{ msgid: 'busy' }], { onError: 'continueRegularOutput', parameters: { operation: 'getStatus', statusOptions: { maxAttempts: 2 } } }));
		expect(String(failingRows[0].error)).toMatch(/Internal error \(code 13\)/);
		expect(lookups(failing)).toHaveLength(2);

		// A redirect carrying the API's code is the API answering: "no such message" (33) is that row's, and stops nothing.
		const movedAway = await server(statusApi({ gone: { status: 302, body: { success: false, errors: [{ message: 'Data does not exist', code: 33 }] }, headers: { Location: '/elsewhere' } }, b: ok('b', history(['2024-03-01T03:22:58Z', 'delivered'])) }));
		const movedRows = rowsOf(await getStatus(movedAway, [{ msgid: 'gone' }, { msgid: 'b' }], { onError: 'continueRegularOutput', parameters: { operation: 'getStatus', statusOptions: { maxConcurrency: 1 } } }));
		expect(movedRows.map((row) => [row.notFound, row.deliveryStatus])).toEqual([[true, null], [false, 'delivered']]);

		// A 404 in the API's shape is a row's unknown msgid, but not with a refused token's code.
		const refused404 = await server(() => ({ status: 404, body: { success: false, errors: [{ message: 'Token invalid', code: 45 }] } }));
		const rows404 = rowsOf(await getStatus(refused404, items, { onError: 'continueRegularOutput', parameters: { operation: 'getStatus', statusOptions: { maxConcurrency: 1 } } }));
		expect(lookups(refused404)).toHaveLength(1);
		expect(rows404.map((row) => row.notFound)).toEqual(items.map(() => false));
	});

	test("never more lookups on their way at once than a send's default (10)", async () => {
		let inFlight = 0;
		let peak = 0;
		const api = await server(() => ({
			raw: (res) => {
				inFlight++;
				peak = Math.max(peak, inFlight);
				setTimeout(() => {
					inFlight--;
					res.writeHead(200, { 'content-type': 'application/json' });
					res.end(JSON.stringify({ history_status: [{ timestamp: 1709263378, status: 'read' }] }));
				}, 600);
			},
		}));
		const result = await getStatus(api, Array.from({ length: 30 }, (_, index) => ({ msgid: `m-${index}` })));
		expect(rowsOf(result).map((row) => row.deliveryStatus)).toEqual(Array(30).fill('read'));
		expect(peak).toBeLessThanOrEqual(10);
		// The lookups did overlap: the bound above was put to the test.
		expect(peak).toBeGreaterThan(1);
	});

	/** Sends are accepted; every msgid asked for is delivered. */
	const acceptSendsAnswerDelivered: Responder = (request, index) => (request.method === 'POST' ? acceptAll(request, index) : ok(askedFor(request) ?? '', history([1709263378, 'delivered'])));

	/** A Send of `count` rows and a Get Status of `count` msgids, at once, on one credential, with these options. */
	const sendAndLookUp = async (api: ApiServer, count: number, sendOptions: IDataObject, statusOptions: IDataObject) =>
		await Promise.all([
			runSendNode({
				baseUrl: api.baseUrl,
				items: Array.from({ length: count }, (_, index) => ({ phone: `62812000${String(index).padStart(5, '0')}` })),
				parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', options: sendOptions },
				typeVersion: 2,
			}),
			getStatus(api, Array.from({ length: count }, (_, index) => ({ msgid: `m-${index}` })), { parameters: { operation: 'getStatus', statusOptions } }),
		]);

	test("lookups at the default and sends at 10 a second with one credential: one pace, at the lower setting while both run", async () => {
		const count = 15;
		const api = await server(acceptSendsAnswerDelivered);
		const pace = watchPace();
		try {
			const [sent, looked] = await sendAndLookUp(api, count, { maxPerSecond: 10 }, {});
			expect(sent.output(SEND_NODE).filter((item) => item.json.status === 'sent')).toHaveLength(count);
			expect(rowsOf(looked).filter((row) => row.deliveryStatus === 'delivered')).toHaveLength(count);
			expect(pacersUsed(pace)).toBe(1);
			// The Send's last request leaves no earlier than the count-th departure: until then both ran, at 10.
			expect(pace.departures.slice(0, count).map((departure) => departure.rate)).toEqual(Array(count).fill(10));
			// The run held back by the other's setting is told so; the Send, at its own setting, is not.
			if (ENGINE.keepsExecutionHints) expect(hintsOf(looked)).toContain('Another run with this credential is set to 10 a second (Max Messages or Max Requests per Second): while they overlapped, this one went at that pace too.');
			expect(hintsOf(sent)).not.toContain('Another run with this credential');
		} finally {
			pace.stop();
		}
	});

	test.each<[string, number | undefined, number]>([
		['at the default 25 a second', undefined, 40],
		['at 10 a second, set on both', 10, 20],
	])("lookups and sends with one credential share the account's pace in one process, %s", async (_name, rate, count) => {
		const perSecond = rate ?? 25;
		const api = await server(acceptSendsAnswerDelivered);
		const pace = watchPace();
		try {
			const setting = rate === undefined ? {} : { maxPerSecond: rate };
			const [sent, looked] = await sendAndLookUp(api, count, setting, setting);
			expect(sent.output(SEND_NODE).filter((item) => item.json.status === 'sent')).toHaveLength(count);
			expect(rowsOf(looked).filter((row) => row.deliveryStatus === 'delivered')).toHaveLength(count);
			expect(lookups(api)).toHaveLength(count);
			// Every request of both kinds left through one pacer at the rate set: one pace for the account,
			// whose spacing is on the simulated clock (test/flow/flowControl.test.ts). A pace each would be two.
			expect(pace.departures).toHaveLength(2 * count);
			expect(pacersUsed(pace)).toBe(1);
			expect(new Set(pace.departures.map((departure) => departure.rate))).toEqual(new Set([perSecond]));
		} finally {
			pace.stop();
		}
	});

	test('a 401 stops the lookups after it; without Continue On Fail the run fails with the API error', async () => {
		const refuse: Responder = () => ({ status: 401, body: { success: false, errors: [{ message: 'Token invalid', code: 45 }] } });
		const items = Array.from({ length: 30 }, (_, index) => ({ msgid: `m-${index}` }));

		const api = await server(refuse);
		const failed = await getStatus(api, items);
		const error = failed.nodeError(SEND_NODE);
		expect(error?.message).toMatch(/^The API refused the status lookup \(HTTP 401\): Token invalid \(code 45\) \[item \d+\]$/);
		expect(error?.name).toBe('NodeApiError');
		// At most the lookups already on their way (10 at once) when the first 401 came back.
		expect(lookups(api).length).toBeGreaterThanOrEqual(1);
		expect(lookups(api).length).toBeLessThanOrEqual(10);

		const again = await server(refuse);
		const continued = await getStatus(again, items, { onError: 'continueRegularOutput' });
		const rows = rowsOf(continued);
		expectShape(continued.output(SEND_NODE));
		expect(rows).toHaveLength(30);
		expect(rows.every((row) => typeof row.error === 'string' && row.deliveryStatus === null)).toBe(true);
		const refused = rows.filter((row) => /HTTP 401/.test(String(row.error)) && !/^Not looked up/.test(String(row.error)));
		const held = rows.filter((row) => /^Not looked up: the API refused the lookup at item \d+ \(HTTP 401: Token invalid \(code 45\)\)/.test(String(row.error)));
		expect(refused.length).toBe(lookups(again).length);
		expect(refused.length + held.length).toBe(30);
		expect(lookups(again).length).toBeLessThanOrEqual(10);
	});

	test('Continue On Fail: a refused lookup is its row; without it the run throws; per-row results never throw', async () => {
		const api = await server(
			statusApi({
				bad: { status: 400, body: { success: false, errors: [{ message: 'Bad request', code: 39 }] } },
				good: ok('good', history(['2024-03-01T03:22:58Z', 'delivered'])),
			}),
		);
		const items = [{ msgid: 'good' }, { msgid: 'bad' }, { status: 'failed' }, { msgid: 'unknown-id' }];
		const continued = rowsOf(await getStatus(api, items, { onError: 'continueRegularOutput' }));
		expect(continued.map((row) => [row.deliveryStatus, row.notFound, row.error === undefined ? null : String(row.error).replace(/ \[item \d\]$/, '')])).toEqual([
			['delivered', false, null],
			[null, false, 'The API refused the status lookup (HTTP 400): Bad request (code 39)'],
			[null, false, null],
			[null, true, null],
		]);

		const thrown = await getStatus(api, items);
		expect(thrown.nodeError(SEND_NODE)?.message).toBe('The API refused the status lookup (HTTP 400): Bad request (code 39) [item 1]');

		// Rows without a msgid and unknown msgids alone: no error, with or without Continue On Fail.
		const perRow = await getStatus(api, [{ status: 'failed' }, { msgid: 'unknown-id' }, { msgid: 'good' }]);
		expect(perRow.nodeError(SEND_NODE)).toBeUndefined();
		expect(rowsOf(perRow).map((row) => [row.deliveryStatus, row.notFound])).toEqual([
			[null, false],
			[null, true],
			['delivered', false],
		]);
	});

	test('with the error output: a failed lookup goes to the second output; rows without a msgid, not found or odd, to the first', async () => {
		const api = await server(
			statusApi({
				bad: { status: 400, body: { success: false, errors: [{ message: 'Bad request', code: 39 }] } },
				good: ok('good', history(['2024-03-01T03:22:58Z', 'delivered'])),
				odd: ok('odd', 'read'),
			}),
		);
		const items = [{ msgid: 'good' }, { msgid: 'bad' }, { status: 'failed' }, { msgid: 'unknown-id' }, { msgid: 'odd' }];
		const result = await getStatus(api, items, { onError: 'continueErrorOutput' });
		expect(result.nodeError(SEND_NODE)).toBeUndefined();
		const regular = result.output(SEND_NODE, 0);
		for (const item of regular) expect(Object.keys(item.json)).toEqual(columnsOf(item.json));
		expect(regular.map((item) => [item.pairedItem, item.json.deliveryStatus, item.json.notFound, item.json.error ?? null])).toEqual([
			[{ item: 0 }, 'delivered', false, null],
			[{ item: 2 }, null, false, null],
			[{ item: 3 }, null, true, null],
			[{ item: 4 }, null, false, null],
		]);
		const errors = result.output(SEND_NODE, 1);
		expect(errors.map((item) => [item.pairedItem, item.json.error])).toEqual([[{ item: 1 }, 'The API refused the status lookup (HTTP 400): Bad request (code 39) [item 1]']]);
		// From n8n 2.36 with the row's other columns under details; before, the item carries its error, and
		// n8n builds the item itself: 1.123 keeps only the error message, 1.78 adds the input's fields (see output/rows.ts).
		const details = errors[0].json.details as IDataObject | undefined;
		if (ENGINE.routesItemsWithDetails) {
			expect(Object.keys(details ?? {})).toEqual([...COLUMNS.filter((column) => column !== 'error'), 'description']);
			expect([details?.msgid, details?.deliveryStatus, details?.description]).toEqual(['bad', null, expect.stringMatching(/Check the Message ID/)]);
		} else if (details !== undefined) expect(details.msgid).toBe('bad');
	});

	test('rows a Send did not take: no request at all, deliveryStatus null and the reason', async () => {
		const api = await server(statusApi({}));
		const sendRows = [
			{ status: 'failed', success: false, phone_number: '6281200000001', error: 'The API refused the message (HTTP 400): x [item 0]' },
			{ status: 'invalid', success: false, phone_number: 'not a phone' },
			{ status: 'notSent' },
			{ status: 'inDoubt', msgid: null },
			{ error: 'refused', details: { delivery: 'failed', phone_number: '6281200000005' } },
			{ msgid: '   ' },
			{},
		];
		const result = await getStatus(api, sendRows);
		expect(api.requests).toHaveLength(0);
		expectShape(result.output(SEND_NODE));
		const rows = rowsOf(result);
		expect(rows.map((row) => [row.deliveryStatus, row.final, row.notFound, row.error ?? null])).toEqual(sendRows.map(() => [null, null, false, null]));
		expect(rows.map((row) => row.reason)).toEqual([
			'No msgid: the Send did not give this item one (its status is failed), so there is no status to look up.',
			'No msgid: the Send did not give this item one (its status is invalid), so there is no status to look up.',
			'No msgid: the Send did not give this item one (its status is notSent), so there is no status to look up.',
			"No msgid from this run: another run recorded this message and never learnt whether the API took it (its status is inDoubt): check the provider's log before sending it again.",
			'No msgid: the Send did not give this item one (its status is failed), so there is no status to look up.',
			'No msgid on this item: map Message ID to the msgid a Send put out. Nothing was looked up.',
			'No msgid on this item: map Message ID to the msgid a Send put out. Nothing was looked up.',
		]);
		expect(rows.map((row) => row.phone_number)).toEqual(['6281200000001', 'not a phone', null, null, '6281200000005', null, null]);
		if (ENGINE.keepsExecutionHints) expect(hintsOf(result)).toContain('Get Status: 7 without a usable msgid');
	});
});

describe('Wait Until', () => {
	test('Wait Until Read: delivered at the first lookup, then an empty history: the row still says delivered, with when', async () => {
		let asked = 0;
		const api = await server((request, index) => {
			if (request.method === 'POST') return acceptAll(request, index);
			asked++;
			return asked === 1 ? ok('a', history(['2024-03-01T03:22:58Z', 'submitted'], ['2024-03-01T03:23:01Z', 'delivered'])) : ok('a', []);
		});
		const [row] = rowsOf(await getStatus(api, [{ msgid: 'a' }], { parameters: { operation: 'getStatus', statusOptions: { waitUntil: 'read', waitLimit: 0.05 } } }));
		expect(asked).toBeGreaterThan(1);
		// Was: deliveryStatus and deliveredAt null, written over the sheet's.
		expect(row).toMatchObject({ deliveryStatus: 'delivered', deliveredAt: '2024-03-01T03:23:01.000Z' });
		expect(row.reason).toMatch(/Its last lookup brought no newer status \(its answer held no status/);
	});

	test('asks again until each row is read or final, and stops at the limit (3 s here) for the rest: a wait of its own, so a real-time lower bound', async () => {
		const asked: Record<string, number> = {};
		const api = await server((request, index) => {
			if (request.method === 'POST') return acceptAll(request, index);
			const msgid = askedFor(request)!;
			asked[msgid] = (asked[msgid] ?? 0) + 1;
			const submitted: [unknown, unknown] = ['2024-03-01T03:22:58Z', 'submitted'];
			const deliveredEntry: [unknown, unknown] = ['2024-03-01T03:23:01Z', 'delivered'];
			if (msgid === 'rejected') return ok(msgid, history(submitted, ['2024-03-01T03:22:59Z', 'rejected']), { additional_info: { code: 1340, reason: 'Send Outside Allowed Window' } });
			// Read from its second lookup on; "receipts off" never.
			if (msgid === 'reads' && asked[msgid] >= 2) return ok(msgid, history(submitted, deliveredEntry, ['2024-03-01T03:30:00Z', 'read']));
			return ok(msgid, history(submitted, deliveredEntry));
		});
		const started = Date.now();
		const result = await getStatus(api, [{ msgid: 'reads' }, { msgid: 'receiptsOff' }, { msgid: 'rejected' }], {
			parameters: { operation: 'getStatus', statusOptions: { waitUntil: 'read', waitLimit: 0.05 } },
		});
		// The code waits to the limit for a row still on its way: a lower bound on real time it guarantees
		// (load only lengthens it), set well below the limit and well above a run that did not wait (0.1 s).
		expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
		expectShape(result.output(SEND_NODE));
		const rows = rowsOf(result);
		expect(rows.map((row) => [row.msgid, row.deliveryStatus, row.final, row.error ?? null])).toEqual([
			['reads', 'read', true, null],
			['receiptsOff', 'delivered', false, null],
			['rejected', 'rejected', true, null],
		]);
		// At the wanted status, and at a final one, the asking stops; the rest is asked until the limit (at 0 s, about 2 s, and 3 s).
		expect([asked.reads, asked.rejected]).toEqual([2, 1]);
		expect(asked.receiptsOff).toBeGreaterThanOrEqual(2);
		expect(asked.receiptsOff).toBeLessThanOrEqual(3);
		// The wait as the clock measured it: 3 s, or a tenth or so more on a busy machine.
		expect(rows[1].reason).toMatch(new RegExp(`^Not read after waiting 3(\\.\\d)? s \\(asked ${asked.receiptsOff} times\\): still delivered\\. Many recipients turn read receipts off: read may never come\\.$`));
		expect([rows[0].reason, rows[2].reason]).toEqual([null, null]);
		if (ENGINE.keepsExecutionHints) {
			expect(hintsOf(result)).toMatch(/Get Status, waiting up to 3 s for read: 1 read, 1 rejected: Send Outside Allowed Window, 1 still delivered after 3(\.\d)? s/);
		}
	});
});

describe('no msgid can change the path or the host asked', () => {
	test('each msgid is one percent-encoded path segment on the Base URL; "", "." and ".." are never asked for', async () => {
		const api = await server(statusApi({}));
		const hostile = ['../push/message', '?x', '#', '%2F', 'https://evil.example/', 'a b/c', '..%2F..'];
		const refused = ['', '.', '..'];
		const result = await getStatus(api, [...hostile, ...refused].map((msgid) => ({ msgid })));
		const seen = lookups(api)
			.map((request) => request.url)
			.sort();
		expect(seen).toEqual(
			[
				'/api/v2/message/..%2Fpush%2Fmessage/status',
				'/api/v2/message/%3Fx/status',
				'/api/v2/message/%23/status',
				'/api/v2/message/%252F/status',
				'/api/v2/message/https%3A%2F%2Fevil.example%2F/status',
				'/api/v2/message/a%20b%2Fc/status',
				'/api/v2/message/..%252F../status',
			].sort(),
		);
		expect(api.requests.every((request) => request.method === 'GET' && request.headers.host === new URL(api.baseUrl).host)).toBe(true);
		const rows = rowsOf(result);
		expect(rows.slice(0, hostile.length).map((row) => [row.notFound, row.msgid])).toEqual(hostile.map((msgid) => [true, msgid]));
		expect(rows.slice(hostile.length).map((row) => [row.notFound, row.deliveryStatus])).toEqual(refused.map(() => [false, null]));
		expect(rows[hostile.length + 1].reason).toBe('Message ID "." cannot be a msgid: nothing was looked up.');
	});
});

describe('hostile or odd answers give a clear row, never a failed run', () => {
	const nested = (depth: number) => `{"msgid":"x","history_status":${'['.repeat(depth)}${']'.repeat(depth)}}`;
	const entries = (count: number) => Array.from({ length: count }, (_, index) => ({ timestamp: 1709263378 + index, status: index === count - 1 ? 'read' : 'delivered' }));

	test.each<[string, Reply, Partial<IDataObject>, RegExp | null]>([
		['an HTML page', { status: 200, rawBody: '<!doctype html><html><body>Maintenance</body></html>', headers: { 'content-type': 'text/html' } }, { deliveryStatus: null }, /^The API answered with a body that is not JSON\.$/],
		['a history that is not a list', { status: 200, body: { msgid: 'x', history_status: { status: 'read' } } }, { deliveryStatus: null }, /^The API's status history is not a list \(history_status is an object\)\.$/],
		['no fields at all', { status: 200, body: {} }, { deliveryStatus: null }, /^The API answered without a status history \(no history_status\)\.$/],
		['an empty history', { status: 200, body: { history_status: [] } }, { deliveryStatus: null }, /^The status history is empty\.$/],
		['entries without a status or a readable time', { status: 200, body: { history_status: [{ timestamp: 'yesterday', status: 'delivered' }, { foo: 1 }, 7, null] } }, { deliveryStatus: 'delivered', statusAt: null }, /^3 history entries have no status; 1 timestamp could not be read/],
		['a deeply nested history', { status: 200, rawBody: nested(20_000), headers: { 'content-type': 'application/json' } }, { deliveryStatus: null }, /^1 history entry has no status\.$/],
		['an error entry nested 10,000 levels deep', { status: 200, rawBody: `{"msgid":"x","errors":[{"detail":${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`, headers: { 'content-type': 'application/json' } }, { deliveryStatus: null }, /^The API answered without a status history: \{"detail":\[\[\[\[\["\[…\]"\]\]\]\]\]\}\.$/],
		['100,000 entries (more than the node reads)', { status: 200, body: { history_status: entries(100_000) } }, { deliveryStatus: null, history: [] }, /^The API's answer could not be read: the API's answer was too large to read/],
	])('%s', async (_name, reply, expected, reason) => {
		const api = await server(() => reply);
		const result = await getStatus(api, [{ msgid: 'x' }]);
		expect(result.nodeError(SEND_NODE)).toBeUndefined();
		expectShape(result.output(SEND_NODE));
		const [row] = rowsOf(result);
		expect(row).toMatchObject(expected);
		expect(row).not.toHaveProperty('error');
		if (reason) expect(String(row.reason)).toMatch(reason);
		expect(JSON.stringify(row).length).toBeLessThan(10_000);
		expect(lookups(api)).toHaveLength(1);
	});

	test('15,000 entries: the newest 50 kept, sorted, the rest counted; huge texts cut', async () => {
		const huge = 'x'.repeat(50_000);
		const api = await server(() => ({ status: 200, body: { msgid: 'x', phone_number: huge, history_status: entries(15_000).reverse(), additional_info: { code: huge, reason: huge } } }));
		const [row] = rowsOf(await getStatus(api, [{ msgid: 'x' }]));
		expect(row.deliveryStatus).toBe('read');
		expect(row.historyDropped).toBe(14_950);
		const kept = row.history as Array<{ status: string; at: string }>;
		expect(kept).toHaveLength(50);
		expect(kept.map((entry) => entry.at)).toEqual([...kept.map((entry) => entry.at)].sort());
		expect(kept[49]).toEqual({ status: 'read', at: new Date((1709263378 + 14_999) * 1000).toISOString() });
		expect([String(row.msgid).length, String(row.phone_number).length]).toEqual([1, 41]);
		// Why a message failed, beside a read one: no failure.
		expect([row.failureCode, row.failureReason]).toEqual([null, null]);
		expect(JSON.stringify(row).length).toBeLessThan(10_000);
	});

	test("a failed message's huge failure code and reason are cut; beside a status of one that did not fail (code 0, \"Success\"), they are no failure", async () => {
		const huge = 'x'.repeat(50_000);
		const api = await server((request) => {
			const failed = askedFor(request) === 'failed';
			return ok(askedFor(request) ?? '', history(['2024-03-01T03:22:58Z', 'submitted'], ['2024-03-01T03:23:58Z', failed ? 'failed' : 'read']), { additional_info: failed ? { code: huge, reason: huge } : { code: 0, reason: 'Success' } });
		});
		const rows = rowsOf(await getStatus(api, [{ msgid: 'failed' }, { msgid: 'read' }]));
		expect(rows.map((row) => [String(row.failureCode).length, String(row.failureReason).length])).toEqual([[41, 301], [4, 4]]);
		expect(rows[1]).toMatchObject({ deliveryStatus: 'read', failureCode: null, failureReason: null });
	});

	test('an answer about another message (another msgid, or one cut or too long to be the one asked) is unreadable: the row keeps the msgid it asked for and takes nothing of the answer', async () => {
		const api = await server((request) => {
			const asked = askedFor(request) ?? '';
			const named = asked === 'mine' ? 'SOMEONE-ELSE' : asked === 'long' ? 'l'.repeat(5_000) : asked;
			return ok(named, history(['2024-03-01T03:22:58Z', 'read']), { phone_number: '+6289999' });
		});
		const rows = rowsOf(await getStatus(api, [{ msgid: 'mine', phone_number: '6281111' }, { msgid: 'long' }, { msgid: 'same' }]));
		expect(rows[0]).toMatchObject({ msgid: 'mine', phone_number: '6281111', deliveryStatus: null, history: [], reason: 'The API\'s answer could not be read: it is about another message (msgid "SOMEONE-ELSE"), not the one asked for.' });
		expect(rows[1]).toMatchObject({ msgid: 'long', deliveryStatus: null, reason: expect.stringMatching(/^The API's answer could not be read: it is about another message \(msgid "l{60}…"\)/) });
		expect(rows[2]).toMatchObject({ msgid: 'same', phone_number: '6289999', deliveryStatus: 'read' });
	});

	test('a long msgid is copied whole, as asked and as answered', async () => {
		const long = `wamid.${'A'.repeat(244)}`;
		const api = await server((request) => ok(askedFor(request) ?? '', history(['2024-03-01T03:22:58Z', 'delivered'])));
		expect(rowsOf(await getStatus(api, [{ msgid: long }]))[0]).toMatchObject({ msgid: long, deliveryStatus: 'delivered' });
	});

	test("a 404 not the API's for a msgid with characters a URL carries escaped (a date with slashes) fails that row alone: the others are looked up", async () => {
		const api = await server((request) => {
			const asked = askedFor(request) ?? '';
			if (/[/%]/.test(asked)) return { status: 404, rawBody: '<html><head><title>404 Not Found</title></head><body>Not Found</body></html>', headers: { 'content-type': 'text/html' } };
			return ok(asked, history(['2024-03-01T03:22:58Z', 'delivered']));
		});
		const result = await getStatus(api, [{ msgid: '2024/03/01' }, { msgid: 'good-1' }, { msgid: 'good-2' }], { parameters: { operation: 'getStatus', statusOptions: { maxConcurrency: 1 } }, onError: 'continueRegularOutput' });
		const rows = rowsOf(result);
		expect(rows.map((row) => row.deliveryStatus)).toEqual([null, 'delivered', 'delivered']);
		expect(String(rows[0].error)).toMatch(/HTTP 404 with an HTML page, not the API's error, for a msgid with characters a URL carries escaped/);
		expect(lookups(api)).toHaveLength(3);
	});
});

describe('the token', () => {
	const base64 = Buffer.from(TEST_TOKEN).toString('base64');
	const forms = [TEST_TOKEN, encodeURIComponent(TEST_TOKEN), base64, base64.replace(/=+$/, ''), ...TEST_TOKEN.split('.').slice(1)];

	test('never appears in any output or error, however the API echoes it', async () => {
		const echo = (request: RecordedRequest): Reply => {
			const auth = String(request.headers.authorization);
			const msgid = askedFor(request);
			if (msgid === 'refused') return { status: 401, body: { errors: [{ message: `Token invalid: ${auth}`, code: 45 }] } };
			if (msgid === 'html') return { status: 200, rawBody: `<p>${auth}</p>` };
			return {
				status: 200,
				body: {
					msgid: msgid === 'echoid' ? auth : msgid,
					phone_number: encodeURIComponent(auth),
					history_status: [
						{ timestamp: '2024-03-01T03:22:58Z', status: auth },
						{ timestamp: auth, status: Buffer.from(auth).toString('base64') },
					],
					additional_info: { code: auth, reason: `rejected for ${auth} (${Buffer.from(auth).toString('base64')})` },
				},
			};
		};
		const api = await server(echo);
		const continued = await getStatus(api, [{ msgid: 'echo' }, { msgid: 'html' }, { msgid: 'echoid' }], { onError: 'continueRegularOutput' });
		const failed = await getStatus(api, [{ msgid: 'refused' }]);
		const rows = rowsOf(continued);
		expect(String(rows[0].failureReason)).toContain('rejected for [redacted]');
		expect(rows[2].reason).toBe('The API\'s answer could not be read: it is about another message (msgid "[redacted]"), not the one asked for.');
		expect(failed.nodeError(SEND_NODE)?.message).toContain('Token invalid: [redacted]');
		const haystack = JSON.stringify([continued.run, failed.run, failed.nodeError(SEND_NODE)]);
		for (const form of forms) expect(haystack).not.toContain(form);
	});
});

describe('a Send piped into Get Status', () => {
	test("the Send's whole output goes in: taken rows are looked up by their msgid, the others come out with the reason", async () => {
		const statuses = new Map<string, string>();
		const api = await server((request) => {
			if (request.method === 'POST') {
				const phone = String((request.body as IDataObject).phone_number);
				if (phone.endsWith('9')) return { status: 400, body: { success: false, errors: [{ message: 'Recipient refused', code: 7 }] } };
				const msgid = `sent-${phone}`;
				statuses.set(msgid, phone.endsWith('1') ? 'read' : 'delivered');
				return { status: 200, body: { msgid, success: true } };
			}
			const msgid = askedFor(request) ?? '';
			const status = statuses.get(msgid);
			if (!status) return { status: 404, body: { errors: [{ message: 'Data does not exist', code: 33 }] } };
			return ok(msgid, history(['2024-03-01T03:22:58Z', 'submitted'], ['2024-03-01T03:23:01Z', status]), { phone_number: msgid.slice('sent-'.length) });
		});
		const phones = ['6281200000001', '6281200000002', '6281200000009', '6281200000011'];
		const credentials = { id: 'cred-1', name: 'Template Message account' };
		const result = await runWorkflow(
			{
				nodes: [
					{ id: 'rows', name: 'Rows', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
					{
						id: 'send',
						name: 'Send',
						type: NODE_TYPE,
						typeVersion: 2,
						position: [200, 0],
						parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl' },
						credentials: { [CREDENTIAL_TYPE]: credentials },
						onError: 'continueRegularOutput',
					},
					{ id: 'status', name: 'Status', type: NODE_TYPE, typeVersion: 2, position: [400, 0], parameters: { operation: 'getStatus' }, credentials: { [CREDENTIAL_TYPE]: credentials } },
				],
				connections: {
					Rows: { main: [[{ node: 'Send', type: 'main', index: 0 }]] },
					Send: { main: [[{ node: 'Status', type: 'main', index: 0 }]] },
				},
				pinData: { Rows: phones.map((phone) => ({ json: { phone } })) },
			},
			{ [CREDENTIAL_TYPE]: { baseUrl: api.baseUrl, token: TEST_TOKEN } },
		);
		const rows = result.output('Status').map((item) => item.json);
		expect(rows.map((row) => [row.phone_number, row.deliveryStatus, row.final])).toEqual([
			['6281200000001', 'read', true],
			['6281200000002', 'delivered', false],
			['6281200000009', null, null],
			['6281200000011', 'read', true],
		]);
		expect(rows[2].reason).toBe('No msgid: the Send did not give this item one (its status is failed), so there is no status to look up.');
		expect(result.output('Status').map((item) => item.pairedItem)).toEqual(phones.map((_, item) => ({ item })));
		expect(lookups(api).map(askedFor).sort()).toEqual(['sent-6281200000001', 'sent-6281200000002', 'sent-6281200000011']);
		// Every lookup came after every send: the Send node ran first.
		const lastSend = Math.max(...api.requests.filter((request) => request.method === 'POST').map((request) => api.requests.indexOf(request)));
		expect(api.requests.findIndex((request) => request.method === 'GET')).toBeGreaterThan(lastSend);
	});
});

describe("a Send's failed rows, beside the sheet's columns of an earlier message", () => {
	/** The row as the sheet holds it the next day: the msgid and status of yesterday's message written back. */
	const yesterday = { msgid: 'old-1', status: 'sent', sentBefore: false };
	const yesterdayRead: Responder = (request) =>
		request.method === 'GET' ? ok('old-1', history(['2024-03-01T03:22:58Z', 'read'])) : request.method === 'POST' && (request.body as IDataObject).phone_number === '6281200000009' ? { status: 400, body: { success: false, errors: [{ message: 'Recipient refused', code: 7 }] } } : { status: 502, rawBody: 'Bad Gateway' };

	test('on the error output, where n8n lays the input under them: Get Status at its defaults asks nothing for them, and says what became of each', async () => {
		const api = await server(yesterdayRead);
		const credentials = { id: 'cred-1', name: 'Template Message account' };
		const result = await runWorkflow(
			{
				nodes: [
					{ id: 'rows', name: 'Rows', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
					{ id: 'send', name: 'Send', type: NODE_TYPE, typeVersion: 2, position: [200, 0], parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', options: { maxAttempts: 1 } }, credentials: { [CREDENTIAL_TYPE]: credentials }, onError: 'continueErrorOutput' },
					{ id: 'status', name: 'Status', type: NODE_TYPE, typeVersion: 2, position: [400, 0], parameters: { operation: 'getStatus' }, credentials: { [CREDENTIAL_TYPE]: credentials } },
				],
				connections: { Rows: { main: [[{ node: 'Send', type: 'main', index: 0 }]] }, Send: { main: [[], [{ node: 'Status', type: 'main', index: 0 }]] } },
				pinData: { Rows: ['6281200000009', '6281200000005', 'not a number'].map((phone) => ({ json: { phone, ...yesterday } })) },
			},
			{ [CREDENTIAL_TYPE]: { baseUrl: api.baseUrl, token: TEST_TOKEN } },
		);
		const rows = result.output('Status').map((item) => item.json);
		// Was: each asked as old-1, and read, final: yesterday's message's status for today's refused one.
		expect(lookups(api)).toHaveLength(0);
		expect(rows.map((row) => [row.deliveryStatus, row.final])).toEqual([[null, null], [null, null], [null, null]]);
		// Where n8n keeps the row's details on its error output (not 1.121 to 2.35: README), the reason says each one's status.
		if (ENGINE.keepsOnlyErrorOnErrorOutput) return;
		const beside = " The msgid beside it (old-1) is not this failed message's and was not looked up: clear error and details when a later send of the row writes it back.";
		expect(rows.map((row) => row.reason)).toEqual([
			`No msgid: the Send did not give this item one (its status is failed), so there is no status to look up.${beside}`,
			`No msgid: this message may have gone out (its status is unknown), but the API gave it no msgid to look it up by: check the provider's log before sending it again.${beside}`,
			`No msgid: the Send did not give this item one (its status is invalid), so there is no status to look up.${beside}`,
		]);
	});

	test.each([1, 2])("version %p: a Send's flat failed row (Continue, regular output) written back over yesterday's: its status at the top, no msgid asked", async (typeVersion) => {
		const api = await server(yesterdayRead);
		const flat = rowsOf(await runSendNode({ baseUrl: api.baseUrl, items: [{ phone: '6281200000009' }], parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', options: { maxAttempts: 1 } }, typeVersion, onError: 'continueRegularOutput' }))[0];
		expect(flat).toMatchObject({ status: 'failed', success: false });
		// The row has no msgid: the sheet's cell keeps yesterday's.
		expect('msgid' in flat).toBe(false);
		const rows = rowsOf(await getStatus(api, [{ msgid: 'old-1', ...flat, details: JSON.stringify(flat.details) }]));
		expect(lookups(api)).toHaveLength(0);
		expect(rows[0]).toMatchObject({ deliveryStatus: null, final: null });
		expect(rows[0].reason).toMatch(/^No msgid: the Send did not give this item one \(its status is failed\).* The msgid beside it \(old-1\)/);
	});

	test("a sheet's own error and details columns, not a Send's failed row's, leave the msgid beside them to be asked", async () => {
		const api = await server(yesterdayRead);
		const rows = rowsOf(await getStatus(api, [{ msgid: 'old-1', status: 'sent', error: 'address bounced', details: '{"status":"paid","amount":120}' }]));
		expect(lookups(api).map(askedFor)).toEqual(['old-1']);
		expect(rows[0]).toMatchObject({ deliveryStatus: 'read', reason: null });
	});

	test("a Send's flat failed row of unknown delivery, read back from a sheet without a msgid column: the msgid in its details text is asked", async () => {
		const api = await server((request) => (request.method === 'POST' ? { status: 200, rawBody: '{"msgid": "u-1"}', headers: { 'content-type': 'application/json' } } : ok('u-1', history(['2024-03-01T03:22:58Z', 'delivered']))));
		const flat = (await runSendNode({ baseUrl: api.baseUrl, items: [{ phone: '6281234567890' }], parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl' }, typeVersion: 2, onError: 'continueRegularOutput' })).output(SEND_NODE)[0].json;
		expect(flat).toMatchObject({ status: 'unknown', msgid: 'u-1', details: { msgid: 'u-1' } });
		// The sheet has no msgid column: the row comes back without it, details as the JSON text written.
		const sheetRow: IDataObject = { ...flat, details: JSON.stringify(flat.details) };
		delete sheetRow.msgid;
		const rows = rowsOf(await getStatus(api, [sheetRow]));
		expect(lookups(api).map(askedFor)).toEqual(['u-1']);
		expect(rows[0]).toMatchObject({ deliveryStatus: 'delivered', reason: null });
	});

	test("a row sent again after it failed, whose write-back left the failure's error and details cells: the row says why its msgid is not asked", async () => {
		const api = await server(yesterdayRead);
		const rows = rowsOf(
			await getStatus(api, [{ status: 'sent', msgid: 'old-1', error: 'The API refused the message (HTTP 400) [item 0]', details: '{"success":false,"status":"failed","httpCode":400}' }]),
		);
		// Read as the failed row it says it is: nothing asked, and the reason names the cells to clear.
		expect(lookups(api)).toHaveLength(0);
		expect(rows[0].reason).toMatch(/The msgid beside it \(old-1\) is not this failed message's and was not looked up: clear error and details when a later send of the row writes it back\.$/);
	});

	test('read back from a sheet, details as the JSON text it wrote, true and numbers as text', async () => {
		const api = await server(yesterdayRead);
		const rows = rowsOf(
			await getStatus(api, [
				{ ...yesterday, error: 'The API refused the message (HTTP 400): Recipient refused (code 7) [item 0]', details: '{"success":false,"status":"failed","phone_number":"6281200000009","httpCode":400}' },
				{ ...yesterday, status: 'skipped', msgid: '', sentBefore: 'TRUE' },
				{ ...yesterday, status: 'skipped', msgid: '', duplicateOf: '3' },
			]),
		);
		expect(lookups(api)).toHaveLength(0);
		expect(rows.map((row) => row.reason)).toEqual([
			"No msgid: the Send did not give this item one (its status is failed), so there is no status to look up. The msgid beside it (old-1) is not this failed message's and was not looked up: clear error and details when a later send of the row writes it back.",
			'No msgid: the Send skipped this item, as Send Once found the same message sent before: look it up by the msgid on the row that sent it.',
			"No msgid: the Send skipped this item as a repeat of item 3: look it up by that row's msgid, if it has one.",
		]);
	});
});

test("the operation as the editor lists it, and its rate's default is the Send's, so that both share one pace", () => {
	const { properties } = require(path.join(PACKAGE_ROOT, 'dist', 'nodes', 'TemplateMessage', 'actions', 'router.js')) as { properties: INodeProperties[] };
	const operation = properties.find((property) => property.name === 'operation')!;
	expect(operation.options).toContainEqual({ name: 'Get Status', value: 'getStatus', action: 'Get the delivery status of a message', description: expect.stringMatching(/delivered, read/) });
	const rateOf = (collection: string) => ((properties.find((property) => property.name === collection)!.options as INodeProperties[]).find((option) => option.name === 'maxPerSecond')!.default);
	expect(rateOf('statusOptions')).toBe(rateOf('options'));
	expect(properties.find((property) => property.name === 'messageId')).toMatchObject({ default: '={{ $json.details?.msgid ?? $json.msgid }}', displayOptions: { show: { operation: ['getStatus'] } } });
});

test("Get Status's own request options reach its lookups: Max Time per Request ends a lookup that gets no answer, Max Attempts counts its tries", async () => {
	const api = await server(statusApi({ silent: { hang: true } }));
	// With Send's defaults instead (30 s a try, 5 tries) this run would outlast the test's limit.
	const result = await getStatus(api, [{ msgid: 'silent' }], { parameters: { operation: 'getStatus', statusOptions: { timeout: 1000, maxAttempts: 2 } }, onError: 'continueRegularOutput' });
	const [row] = rowsOf(result);
	expect(row.error).toMatch(/timeout/);
	expect(lookups(api)).toHaveLength(2);
});

test('every request setting a Get Status offers is the Send option of the same name, read the same way, in its own words', () => {
	const { STATUS_OPTIONS } = require(path.join(PACKAGE_ROOT, 'dist', 'nodes', 'TemplateMessage', 'shared', 'statusOptions.js')) as { STATUS_OPTIONS: Record<string, { read: unknown; property: INodeProperties }> };
	const { OPTIONS } = require(path.join(PACKAGE_ROOT, 'dist', 'nodes', 'TemplateMessage', 'shared', 'options.js')) as { OPTIONS: Record<string, { read: unknown; property: INodeProperties }> };
	const shared = Object.keys(STATUS_OPTIONS).filter((name) => name in OPTIONS);
	expect(shared.sort()).toEqual(['includeInputFields', 'maxAttempts', 'maxConcurrency', 'maxOutageWait', 'maxPerSecond', 'maxThrottleWait', 'timeout']);
	for (const name of shared) {
		expect({ name, read: STATUS_OPTIONS[name].read, default: STATUS_OPTIONS[name].property.default, typeOptions: STATUS_OPTIONS[name].property.typeOptions }).toEqual({
			name,
			read: OPTIONS[name].read,
			default: OPTIONS[name].property.default,
			typeOptions: OPTIONS[name].property.typeOptions,
		});
	}
});

describe('what a Send put out, read back', () => {
	test('a 303 from the status endpoint is a redirect like any other after a GET: not asked again, the lookups after it stop, the redirect hint given', async () => {
		const api = await server((request, index) => (request.method === 'POST' ? acceptAll(request, index) : { status: 303, rawBody: '', headers: { location: 'https://login.example.com/sso?next=/api' } }));
		const result = await getStatus(api, [{ msgid: 'm-0' }, { msgid: 'm-1' }, { msgid: 'm-2' }], {
			onError: 'continueRegularOutput',
			parameters: { operation: 'getStatus', statusOptions: { maxConcurrency: 1, maxOutageWait: 0 } },
		});
		const rows = rowsOf(result);
		// Was a send's "delivery unknown": every lookup tried 5 times with backoff, "which follows a handled request".
		expect(lookups(api)).toHaveLength(1);
		expect(rows[0].error).toBe('The API refused the status lookup (HTTP 303): the API answered with a redirect (HTTP 303 to https://login.example.com); redirects are not followed [item 0]');
		expect(rows.slice(1).map((row) => String(row.error))).toEqual([expect.stringMatching(/^Not looked up/), expect.stringMatching(/^Not looked up/)]);
	});

	test.each<[string, IDataObject]>([
		['with Continue On Fail', { onError: 'continueRegularOutput' }],
		['without it', {}],
	])('Wait Until: a row asked again whose lookup fails keeps the status it had and says why it has no newer one; the run does not fail (%s)', async (_name, run) => {
		let askedA = 0;
		const api = await server((request, index) => {
			if (request.method === 'POST') return acceptAll(request, index);
			if (askedFor(request) === 'b') return ok('b', history(['2024-03-01T03:22:58Z', 'read']));
			askedA++;
			if (askedA === 1) return ok('a', history(['2024-03-01T03:22:58Z', 'submitted'], ['2024-03-01T03:23:01Z', 'delivered']));
			return { status: 502, rawBody: '<html><title>502 Bad Gateway</title></html>', headers: { 'content-type': 'text/html' } };
		});
		const result = await getStatus(api, [{ msgid: 'a' }, { msgid: 'b' }], { ...run, parameters: { operation: 'getStatus', statusOptions: { waitUntil: 'read', waitLimit: 0.05, maxAttempts: 1 } } });
		expect(result.nodeError(SEND_NODE)).toBeUndefined();
		const rows = rowsOf(result);
		// Was: deliveryStatus null and the 502 (Continue On Fail), or the whole run failed with it.
		expect(rows.map((row) => [row.deliveryStatus, row.deliveredAt, row.error ?? null])).toEqual([
			['delivered', '2024-03-01T03:23:01.000Z', null],
			['read', null, null],
		]);
		expect(rows[0].reason).toMatch(/^Not read after waiting .*: still delivered\. Its last lookup brought no newer status \(HTTP 502: 502 Bad Gateway \(an HTML page\)\): this is the status it had before\./);
	});

	test('a msgid the API writes as a number beyond 2^53 keeps its digits, in the Send\'s row and in a status answer', async () => {
		const big = '1234567890123456789';
		const api = await server((request) =>
			request.method === 'POST'
				? { status: 200, rawBody: `{"msgid": ${big}, "success": true}`, headers: { 'content-type': 'application/json' } }
				: { status: 200, rawBody: `{"msgid": ${big}, "history_status": [{"timestamp": "2024-03-01T03:22:58Z", "status": "read"}]}`, headers: { 'content-type': 'application/json' } },
		);
		const sent = await runSendNode({ baseUrl: api.baseUrl, items: [{ phone: '6281234567890' }], parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl' }, typeVersion: 2 });
		// Was 1234567890123456800: another message's id.
		expect(sent.output(SEND_NODE)[0].json).toMatchObject({ status: 'sent', msgid: big });
		const [row] = rowsOf(await getStatus(api, [{ msgid: big }]));
		expect(row).toMatchObject({ msgid: big, deliveryStatus: 'read', reason: null });
	});

	test('a row the Send skipped points to the row that went instead: Send Once\'s to the row that sent it, a repeat to the item it repeats', async () => {
		const api = await server(() => ok('x', []));
		const rows = rowsOf(await getStatus(api, [{ status: 'skipped', success: false, phone_number: '6281234567890', sentBefore: true }, { status: 'skipped', success: false, duplicateOf: 0 }, { status: 'skipped' }]));
		expect(lookups(api)).toHaveLength(0);
		// Was "there is no status to look up", where the message went out on another row.
		expect(rows.map((row) => row.reason)).toEqual([
			'No msgid: the Send skipped this item, as Send Once found the same message sent before: look it up by the msgid on the row that sent it.',
			"No msgid: the Send skipped this item as a repeat of item 0: look it up by that row's msgid, if it has one.",
			'No msgid: the Send skipped this item (its status is skipped), so it cannot be looked up here.',
		]);
	});

	test.each<[string, string, 'continueRegularOutput' | 'continueErrorOutput']>([
		['success as the text "true"', '{"msgid": "abc-1", "success": "true"}', 'continueRegularOutput'],
		['no success field', '{"msgid": "abc-1"}', 'continueRegularOutput'],
		['no success field, the row on the error output', '{"msgid": "abc-1"}', 'continueErrorOutput'],
		['a 429 that says success: true', '{"msgid": "abc-1", "success": true}', 'continueRegularOutput'],
	])('a Send row of unknown delivery whose answer named a msgid (%s) keeps it, and Get Status at its defaults settles it', async (_name, answer, onError) => {
		const api = await server((request) => {
			if (request.method === 'POST') return { status: answer.includes('success": true') ? 429 : 200, rawBody: answer, headers: { 'content-type': 'application/json' } };
			return ok('abc-1', history(['2024-03-01T03:22:58Z', 'submitted'], ['2024-03-01T03:23:01Z', 'delivered']));
		});
		const credentials = { id: 'cred-1', name: 'Template Message account' };
		const output = onError === 'continueErrorOutput' ? 1 : 0;
		const result = await runWorkflow(
			{
				nodes: [
					{ id: 'rows', name: 'Rows', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
					{ id: 'send', name: 'Send', type: NODE_TYPE, typeVersion: 2, position: [200, 0], parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl' }, credentials: { [CREDENTIAL_TYPE]: credentials }, onError },
					{ id: 'status', name: 'Status', type: NODE_TYPE, typeVersion: 2, position: [400, 0], parameters: { operation: 'getStatus' }, credentials: { [CREDENTIAL_TYPE]: credentials } },
				],
				connections: { Rows: { main: [[{ node: 'Send', type: 'main', index: 0 }]] }, Send: { main: output === 0 ? [[{ node: 'Status', type: 'main', index: 0 }]] : [[], [{ node: 'Status', type: 'main', index: 0 }]] } },
				pinData: { Rows: [{ json: { phone: '6281234567890' } }] },
			},
			{ [CREDENTIAL_TYPE]: { baseUrl: api.baseUrl, token: TEST_TOKEN } },
		);
		// Was: no msgid on the row, and Get Status asked nothing ("the Send did not give this item one").
		expect(api.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
		// n8n 1.121 to 2.35 keep only the error message on the error output (see the Forget tests in sendOnce.engine.test.ts).
		if (onError === 'continueErrorOutput' && ENGINE.keepsOnlyErrorOnErrorOutput) return;
		expect(lookups(api).map(askedFor)).toEqual(['abc-1']);
		expect(result.output('Status').map((item) => item.json.deliveryStatus)).toEqual(['delivered']);
	});
});

describe('back into the sheet row it came from', () => {
	const rejectedAnswer = ok('abc-1', history(['2024-03-01T03:22:58Z', 'submitted'], ['2024-03-01T03:22:59Z', 'rejected']), { additional_info: { code: 1340, reason: 'Send Outside Allowed Window' } });
	/** n8n's Google Sheets Update Row matching on a column: the cell's text, whole. */
	const matches = (cell: unknown, key: unknown) => key !== null && String(cell) === String(key);

	test('a msgid cell with spaces around it is asked for trimmed and put out as the cell has it, so Update Row by msgid finds its row', async () => {
		const api = await server(statusApi({ 'abc-1': rejectedAnswer }));
		const [row] = rowsOf(await getStatus(api, [{ msgid: ' abc-1 ' }]));
		expect(lookups(api).map(askedFor)).toEqual(['abc-1']);
		expect(row).toMatchObject({ deliveryStatus: 'rejected', failureCode: 1340, msgid: ' abc-1 ' });
		expect(matches(' abc-1 ', row.msgid)).toBe(true);
	});

	test.each(['1.23457E+18', '1.234567890123457e+18', '4,5E+11'])('a msgid %s, as a sheet shows a long number, is not asked for: the row says the digits were cut, and keeps the cell to match', async (cell) => {
		const api = await server(statusApi({}));
		const [row] = rowsOf(await getStatus(api, [{ msgid: cell }], { onError: 'continueRegularOutput' }));
		expect(lookups(api)).toHaveLength(0);
		expect(row).toMatchObject({ notFound: false, msgid: cell, reason: expect.stringMatching(/^Message ID ".*" is a number in scientific notation, as a sheet shows a long one: its digits were cut\. Format the column holding the msgid as text/) });
	});

	test('a hexadecimal msgid with an e in it is still a msgid', async () => {
		const api = await server(statusApi({ '12e45': ok('12e45', history(['2024-03-01T03:22:58Z', 'read'])) }));
		expect(rowsOf(await getStatus(api, [{ msgid: '12e45' }]))[0]).toMatchObject({ deliveryStatus: 'read' });
	});

	test('Include Input Fields: the row\'s own columns (row number, a key) come out with the status, the node\'s own fields winning; without it, none', async () => {
		const api = await server(statusApi({ 'abc-1': rejectedAnswer }));
		const sheet = [
			{ row_number: 2, order_id: 'ORD-1', msgid: 'abc-1', deliveryStatus: 'stale' },
			{ row_number: 3, order_id: 'ORD-2', msgid: '' },
		];
		const rows = rowsOf(await getStatus(api, sheet, { parameters: { operation: 'getStatus', statusOptions: { includeInputFields: true } } }));
		expect(rows.map((row) => [row.row_number, row.order_id, row.deliveryStatus, row.msgid])).toEqual([
			[2, 'ORD-1', 'rejected', 'abc-1'],
			[3, 'ORD-2', null, null],
		]);
		expect(Object.keys(rows[0])).toEqual(['row_number', 'order_id', ...columnsOf(rows[0])]);
		expectShape(rowsOf(await getStatus(api, sheet)).map((json, index) => ({ json, pairedItem: { item: index } })));
	});

	// n8n up to 1.x runs a node under Retry On Fail again whenever its first row has an `error`, null included:
	// every row had `error: null`, and every msgid was asked once per try.
	test("Retry On Fail, every lookup answered: each msgid asked once, and a sheet's old error column does not come back", async () => {
		const api = await server(statusApi({ 'abc-1': rejectedAnswer, 'abc-2': ok('abc-2', history(['2024-03-01T03:22:58Z', 'read'])) }));
		const sheet = [
			{ row_number: 2, msgid: 'abc-1', error: 'Delivery unknown: an earlier run' },
			{ row_number: 3, msgid: 'abc-2', error: null },
		];
		for (const statusOptions of [{}, { includeInputFields: true }]) {
			api.requests.length = 0;
			const result = await getStatus(api, sheet, { parameters: { operation: 'getStatus', statusOptions }, retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });
			expect(rowsOf(result).map((row) => [row.deliveryStatus, 'error' in row])).toEqual([
				['rejected', false],
				['read', false],
			]);
			expect(lookups(api).map(askedFor)).toEqual(['abc-1', 'abc-2']);
		}
	});

	test('a Send\'s error-output row written to a sheet (details as JSON text) is looked up by the msgid in it, with the default Message ID', async () => {
		const api = await server(statusApi({ 'u-1': ok('u-1', history(['2024-03-01T03:22:58Z', 'delivered'])) }));
		const row = { error: 'The API did not answer: may have been sent', details: JSON.stringify({ status: 'unknown', msgid: 'u-1', phone_number: '6281234567890' }), row_number: 2 };
		expect(rowsOf(await getStatus(api, [row]))[0]).toMatchObject({ msgid: 'u-1', deliveryStatus: 'delivered' });
		// Mapped to a column of the user's choice, that column alone is read.
		const mapped = rowsOf(await getStatus(api, [row], { parameters: { operation: 'getStatus', messageId: '={{ $json.msgid }}' } }));
		expect(mapped[0]).toMatchObject({ msgid: null, deliveryStatus: null, reason: expect.stringMatching(/^No msgid/) });
	});
});

describe('a Message ID whose expression fails for one item, with Continue On Fail', () => {
	const messageId = "={{ $json.details?.msgid ?? $('Node That Did Not Run').item.json.msgid }}";
	const failure = 'Message ID: its expression failed: Referenced node doesn\'t exist (node "Node That Did Not Run") [item 1]';

	test('using the error output: that item goes there, paired; the others are looked up', async () => {
		const api = await server(statusApi({ 'abc-1': ok('abc-1', history(['2024-03-01T03:22:58Z', 'read'])) }));
		const result = await getStatus(api, [{ details: { msgid: 'abc-1' } }, { other: 1 }], { onError: 'continueErrorOutput', parameters: { operation: 'getStatus', messageId } });
		expect(rowsOf(result).map((row) => row.deliveryStatus)).toEqual(['read']);
		const errors = result.output(SEND_NODE, 1);
		expect(errors.map((item) => [item.pairedItem, item.json.error])).toEqual([[{ item: 1 }, failure]]);
	});

	test('on the regular output: the row carries it in error', async () => {
		const api = await server(statusApi({ 'abc-1': ok('abc-1', history(['2024-03-01T03:22:58Z', 'read'])) }));
		const rows = rowsOf(await getStatus(api, [{ details: { msgid: 'abc-1' } }, { other: 1 }], { onError: 'continueRegularOutput', parameters: { operation: 'getStatus', messageId } }));
		expect(rows.map((row) => [row.deliveryStatus, row.error ?? null, row.reason])).toEqual([
			['read', null, null],
			[null, failure, null],
		]);
		if (ENGINE.keepsExecutionHints) expect(hintsOf(await getStatus(api, [{ other: 1 }], { onError: 'continueRegularOutput', parameters: { operation: 'getStatus', messageId } }))).toMatch(/1 not looked up \(Message ID could not be read\)/);
	});
});

describe('Wait Until, history read for what it says', () => {
	test('rejected, its history newest first with times the node cannot read: rejected and final, asked once', async () => {
		const api = await server(statusApi({ x: ok('x', history(['Fri, 01 Mar 2024 03:22:59 GMT', 'rejected'], ['Fri, 01 Mar 2024 03:22:58 GMT', 'submitted']), { additional_info: { code: 1340, reason: 'Send Outside Allowed Window' } }) }));
		const [row] = rowsOf(await getStatus(api, [{ msgid: 'x' }], { parameters: { operation: 'getStatus', statusOptions: { waitUntil: 'delivered', waitLimit: 0.05 } } }));
		expect([row.deliveryStatus, row.final, row.failureCode]).toEqual(['rejected', true, 1340]);
		expect(lookups(api)).toHaveLength(1);
	});

	test('a msgid the API does not know yet at the first lookup (right after a Send) is asked again, and its status comes', async () => {
		let asked = 0;
		const api = await server(statusApi({ fresh: () => (++asked === 1 ? { status: 404, body: { success: false, errors: [{ message: 'Data does not exist', code: 33 }] } } : ok('fresh', history(['2024-03-01T03:22:58Z', 'delivered']))) }));
		const [row] = rowsOf(await getStatus(api, [{ msgid: 'fresh' }], { parameters: { operation: 'getStatus', statusOptions: { waitUntil: 'delivered', waitLimit: 0.1 } } }));
		expect([row.deliveryStatus, row.notFound, asked]).toEqual(['delivered', false, 2]);
	});

	test('one it never knows says how often it was asked (the figures: test/lookup/lookupWait.test.ts)', async () => {
		const api = await server(statusApi({}));
		const [row] = rowsOf(await getStatus(api, [{ msgid: 'typo' }], { parameters: { operation: 'getStatus', statusOptions: { waitUntil: 'delivered', waitLimit: 0.05 } } }));
		expect(row.notFound).toBe(true);
		expect(row.reason).toMatch(new RegExp(`it may belong to another account, be mistyped, or be too old to look up\\. Asked ${lookups(api).length} times over [\\d.]+ s with Wait Until \\(a msgid sent a moment ago may not be known yet\\): it did not know it\\.$`));
	});

	test('Include Input Fields with the error output: a failed lookup goes there as a Send\'s failed row does, its details the node\'s own columns', async () => {
		const api = await server(() => ({ status: 401, body: { success: false, errors: [{ message: 'Invalid token', code: 17 }] } }));
		const result = await getStatus(api, [{ msgid: 'm-1', row_number: 7, description: 'mine' }], { onError: 'continueErrorOutput', parameters: { operation: 'getStatus', statusOptions: { includeInputFields: true } } });
		// n8n's error output puts the input item's fields beside error and details itself (as for a Send's failed row);
		// before 2.36 n8n builds the item itself (see the test of the error output above).
		const [failed] = result.output(SEND_NODE, 1).map((item) => item.json);
		expect(failed.error).toBe('The API refused the status lookup (HTTP 401): Invalid token (code 17) [item 0]');
		if (!ENGINE.routesItemsWithDetails) return;
		expect(Object.keys(failed.details as IDataObject)).toEqual([...COLUMNS.filter((column) => column !== 'error'), 'description']);
		expect((failed.details as IDataObject).description).not.toBe('mine');
	});
});

describe("a Send's row written back to a sheet without a details column, over an earlier message's msgid", () => {
	/** Yesterday's message (old-1) was read; today's send of the row is refused (HTTP 400). */
	const refusedToday: Responder = (request) => {
		if (request.method === 'GET') return ok(askedFor(request) ?? '', history(['2024-03-01T03:22:58Z', 'read']));
		return { status: 400, body: { success: false, errors: [{ message: 'Recipient refused', code: 7 }] } };
	};
	/** The row the next day: yesterday's message written back (sent, old-1). */
	const yesterday: IDataObject = { row_number: 2, phone: '6281200000009', status: 'sent', success: 'TRUE', msgid: 'old-1' };
	/** What Google Sheets' Update Row (columns mapped automatically) leaves: the row's keys among `columns` written as text, the other cells kept. */
	const writtenBack = (before: IDataObject, row: IDataObject, columns: string[]): IDataObject => {
		const after: IDataObject = { ...before };
		for (const column of columns) {
			const value = row[column];
			if (value === undefined || value === null) continue;
			after[column] = typeof value === 'boolean' ? (value ? 'TRUE' : 'FALSE') : typeof value === 'object' ? JSON.stringify(value) : (value as string | number);
		}
		return after;
	};

	test.each<[string, number, string[]]>([
		['version 2, columns status, success, msgid, error', 2, ['status', 'success', 'msgid', 'error']],
		['version 2, columns status, msgid, error', 2, ['status', 'msgid', 'error']],
		['version 1 (0.1.0), columns status, success, msgid, error, delivery', 1, ['status', 'success', 'msgid', 'error', 'delivery']],
	])("a refused or invalid row (%s) is not answered with the earlier message's status: nothing is asked, the reason names the msgid beside it", async (_name, typeVersion, columns) => {
		const api = await server(refusedToday);
		const sent = await runSendNode({
			baseUrl: api.baseUrl,
			items: [{ phone: '6281200000009' }, { phone: 'not a number' }],
			parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl', options: { maxAttempts: 1 } },
			typeVersion,
			onError: 'continueRegularOutput',
		});
		const sendRows = rowsOf(sent);
		expect(sendRows.map((row) => [row.status, row.success, 'msgid' in row])).toEqual([
			['failed', false, false],
			['invalid', false, false],
		]);
		const sheet = sendRows.map((row) => writtenBack(yesterday, row, columns));
		expect(sheet[0]).toMatchObject({ status: 'failed', msgid: 'old-1', error: expect.stringMatching(/HTTP 400/) });

		const rows = rowsOf(await getStatus(api, sheet, { onError: 'continueRegularOutput' }));
		expect(lookups(api).map(askedFor)).toEqual([]);
		expect(rows.map((row) => [row.deliveryStatus, row.final, row.readAt])).toEqual([
			[null, null, null],
			[null, null, null],
		]);
		expect(rows[0].reason).toMatch(/its status is failed/);
		expect(rows[1].reason).toMatch(/its status is invalid/);
		for (const row of rows) expect(row.reason).toContain("The msgid beside it (old-1) is an earlier message's");
	});

	test('an in-doubt row (Send Once) written back over an earlier msgid: not answered with that message\'s status', async () => {
		const api = await server(refusedToday);
		const inDoubt: IDataObject = { status: 'inDoubt', success: false, phone_number: '6281200000009', template_code_id: 'tpl', reason: 'In doubt: …', messageKey: '6281200000009|tpl' };
		const sheet = writtenBack(yesterday, inDoubt, ['status', 'msgid', 'reason']);
		expect(sheet).toMatchObject({ status: 'inDoubt', msgid: 'old-1' });
		const [row] = rowsOf(await getStatus(api, [sheet]));
		expect(lookups(api).map(askedFor)).toEqual([]);
		expect([row.deliveryStatus, row.final]).toEqual([null, null]);
		expect(row.reason).toMatch(/never learnt whether the API took it \(its status is inDoubt\).*The msgid beside it \(old-1\) was not looked up: .*send only the rows with status inDoubt \(a Filter\) to a Get Status whose Message ID is \{\{ \$json\.msgid \}\}/);
		// The msgid may be this message's own (an earlier run's row of unknown delivery with the answer's msgid): asked when Message ID says so.
		const [asked] = rowsOf(await getStatus(api, [sheet], { parameters: { operation: 'getStatus', messageId: '={{ $json.msgid }}' } }));
		expect(lookups(api).map(askedFor)).toEqual(['old-1']);
		expect(asked.deliveryStatus).toBe('read');
	});

	test('rows whose msgid may be their own are still asked: unknown delivery, a sent row beside a stale error cell, a status column of the sheet\'s own', async () => {
		const api = await server(refusedToday);
		const rows = rowsOf(
			await getStatus(api, [
				{ status: 'unknown', success: 'FALSE', msgid: 'u-1', error: 'Delivery unknown: no answer before the timeout [item 0]' },
				{ status: 'sent', success: 'TRUE', msgid: 'new-1', error: 'The API refused the message (HTTP 400) [item 0]' },
				{ status: 'failed', msgid: 'own-1' },
			]),
		);
		expect(lookups(api).map(askedFor).sort()).toEqual(['new-1', 'own-1', 'u-1']);
		expect(rows.map((row) => row.deliveryStatus)).toEqual(['read', 'read', 'read']);
	});
});

describe('a msgid a sheet kept as a number', () => {
	/** A number as a sheet keeps it: its first 15 digits, zeros after them. */
	const asSheetKeepsIt = (digits: string): number => Number(digits.slice(0, 15).padEnd(digits.length, '0'));

	test('16 digits ending in 0, as a sheet gives back one whose last digit it dropped, or beyond 2^53: not asked for, the row says to format the column as text', async () => {
		const api = await server(statusApi({ '1234567890123456': ok('1234567890123456', history(['2024-03-01T03:22:58Z', 'rejected'])), '1234567890123450': ok('1234567890123450', history(['2024-03-01T03:22:58Z', 'read'])) }));
		const cell = asSheetKeepsIt('1234567890123456');
		expect([cell, Number.isSafeInteger(cell)]).toEqual([1234567890123450, true]);
		const rows = rowsOf(await getStatus(api, [{ msgid: cell }, { msgid: 2 ** 60 }], { onError: 'continueRegularOutput' }));
		expect(lookups(api).map(askedFor)).toEqual([]);
		expect(rows.map((row) => [row.deliveryStatus, row.final])).toEqual([
			[null, null],
			[null, null],
		]);
		expect(rows[0].reason).toMatch(/Message ID 1234567890123450 is a number of 16 digits ending in 0, as a sheet gives back one whose last digit it dropped .*format the column holding the msgid as text and write the msgid from the Send's output again/);
		expect(rows[1].reason).toMatch(/Message ID \d+ is a number too large to keep its digits: format the column holding the msgid as text/);
	});

	test('15 digits or fewer, which a number cell keeps whole, and 16 not ending in 0 (a database\'s, a Code node\'s: a sheet would have written a 0) are asked for', async () => {
		const read = (msgid: string) => ok(msgid, history(['2024-03-01T03:22:58Z', 'read']));
		const api = await server(statusApi({ '123456789012345': read('123456789012345'), '42': read('42'), '1234567890123457': read('1234567890123457') }));
		const rows = rowsOf(await getStatus(api, [{ msgid: 123456789012345 }, { msgid: 42 }, { msgid: 1234567890123457 }]));
		expect(lookups(api).map(askedFor).sort()).toEqual(['123456789012345', '1234567890123457', '42']);
		expect(rows.map((row) => row.deliveryStatus)).toEqual(['read', 'read', 'read']);
	});
});
