/**
 * The fault matrix: one server behaviour per row, one item sent through the node in n8n's engine
 * (Continue On Fail on). Each ends as sent, failed with the server's reason, or delivery unknown,
 * and never reaches the server twice as an accepted message. The table in docs/reliability.md is
 * this test's output: it fails when the committed table differs (UPDATE_DOCS=1 rewrites it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import type { IDataObject } from 'n8n-workflow';

import type { Reply, Responder } from '../helpers/apiServer';
import { acceptAll, startApiServer } from '../helpers/apiServer';
import { PACKAGE_ROOT, runSendNode, SEND_NODE } from '../helpers/engine';

interface Fault {
	behaviour: string;
	/** Reply to the n-th request (0-based); later requests are accepted. */
	replies: Reply[];
	/** Keep replying the last reply instead of accepting later requests. */
	persistent?: boolean;
	expected: 'sent' | 'failed' | 'unknown';
}

const FAULTS: Fault[] = [
	{ behaviour: '429 with `Retry-After: 1`, then accepted', replies: [{ status: 429, headers: { 'Retry-After': '1' }, body: { errors: [{ message: 'Too many requests', code: 429 }] } }], expected: 'sent' },
	{ behaviour: '429 without Retry-After, then accepted', replies: [{ status: 429 }], expected: 'sent' },
	{
		behaviour: '429 with `Retry-After: 1` four times, more than *Max Attempts*, then accepted (429s do not count)',
		replies: Array.from({ length: 4 }, () => ({ status: 429, headers: { 'Retry-After': '1' }, body: { errors: [{ message: 'Too many requests', code: 9 }] } })),
		expected: 'sent',
	},
	{ behaviour: '404 with the provider\'s code 33 (this recipient does not exist)', replies: [{ status: 404, body: { errors: [{ message: 'Data does not exist', code: 33 }] } }], expected: 'failed' },
	{ behaviour: '503 with a text body, then accepted', replies: [{ status: 503, rawBody: 'Service Unavailable' }], expected: 'sent' },
	{ behaviour: '503 with a text body, every time', replies: [{ status: 503, rawBody: 'Service Unavailable' }], persistent: true, expected: 'failed' },
	{ behaviour: '500 with the provider\'s error body, then accepted', replies: [{ status: 500, body: { errors: [{ message: 'Internal error', code: 13 }] } }], expected: 'sent' },
	{ behaviour: '500 with the provider\'s error body, every time', replies: [{ status: 500, body: { errors: [{ message: 'Internal error', code: 13 }] } }], persistent: true, expected: 'failed' },
	{ behaviour: '401 (wrong token)', replies: [{ status: 401, body: { message: 'Invalid token' } }], expected: 'failed' },
	{ behaviour: '406 with `{errors:[{message, code}]}`', replies: [{ status: 406, body: { errors: [{ message: 'Template is not approved', code: 39 }] } }], expected: 'failed' },
	{ behaviour: '200 with `success: false`', replies: [{ status: 200, body: { success: false, errors: [{ message: 'Recipient not on the platform', code: 12 }] } }], expected: 'failed' },
	{ behaviour: '200 with invalid JSON', replies: [{ status: 200, rawBody: '{"msgid": "m-1", "succ' }], expected: 'unknown' },
	{ behaviour: '500 with an HTML page (a proxy in front of the API)', replies: [{ status: 500, rawBody: '<html><body>Internal Server Error</body></html>', headers: { 'content-type': 'text/html' } }], expected: 'unknown' },
	{ behaviour: '502 from a gateway', replies: [{ status: 502, rawBody: 'Bad Gateway' }], expected: 'unknown' },
	{ behaviour: '520 from a proxy (the origin answered with something it could not read)', replies: [{ status: 520, rawBody: 'Web server is returning an unknown error' }], expected: 'unknown' },
	{ behaviour: '524 from a proxy (the origin took the request, then timed out)', replies: [{ status: 524, rawBody: 'A timeout occurred' }], expected: 'unknown' },
	{ behaviour: "503 from Envoy (Istio, an API gateway): the connection broke after it passed the request on", replies: [{ status: 503, rawBody: 'upstream connect error or disconnect/reset before headers. reset reason: connection termination' }], expected: 'unknown' },
	{ behaviour: '503 from Varnish or Fastly (its first byte timeout: the API had the request)', replies: [{ status: 503, rawBody: 'Error 503 first byte timeout\n\nfirst byte timeout\n\nGuru Mediation:\n\nVarnish cache server' }], expected: 'unknown' },
	{ behaviour: "503 from Heroku's router (its Application Error page, also after a timeout of a request the app had)", replies: [{ status: 503, rawBody: '<!DOCTYPE html><html><head><title>Application Error</title></head><body></body></html>', headers: { 'content-type': 'text/html' } }], expected: 'unknown' },
	{ behaviour: '200 with `success: false` and the internal-error code 13', replies: [{ status: 200, body: { success: false, errors: [{ message: 'Internal error', code: 13 }] } }], expected: 'unknown' },
	{ behaviour: 'Connection reset after the request was read (before any answer)', replies: [{ resetAfterBody: true }], expected: 'unknown' },
	{ behaviour: 'No answer until the timeout (1 s here)', replies: [{ hang: true }], expected: 'unknown' },
	{ behaviour: '301/302/307/308 redirect to another origin (not followed)', replies: [{ status: 307, headers: { Location: 'http://127.0.0.2:9/api/v2/push/message' } }], expected: 'failed' },
	{ behaviour: '303 See Other (not followed: it comes after a handled request)', replies: [{ status: 303, headers: { Location: 'http://127.0.0.2:9/done' } }], expected: 'unknown' },
	{ behaviour: 'An error body nested 10,000 levels deep', replies: [{ status: 400, rawBody: `{"message":"deep","d":${'['.repeat(10_000)}${']'.repeat(10_000)}}`, headers: { 'content-type': 'application/json' } }], expected: 'failed' },
	{ behaviour: 'A 2xx answer of 2 MB', replies: [{ status: 200, rawBody: `{"success":true,"msgid":"${'m'.repeat(2 * 1024 * 1024)}"}`, headers: { 'content-length': String(2 * 1024 * 1024 + 28) } }], expected: 'unknown' },
	{ behaviour: 'Headers, then the answer dripping one byte every 100 ms past the timeout', replies: [{ raw: (res) => drip(res) }], expected: 'unknown' },
];

function drip(res: ServerResponse): void {
	res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
	let sent = 0;
	const timer = setInterval(() => (sent++ < 30 && !res.destroyed ? res.write(' ') : clearInterval(timer)), 100);
	res.on('close', () => clearInterval(timer));
}

function scripted(fault: Fault): Responder {
	return (request, index) => fault.replies[index] ?? (fault.persistent ? fault.replies[fault.replies.length - 1] : acceptAll(request, index));
}

/** Each fault's row of docs/reliability.md's table, by its place in FAULTS, as its test observed it. */
const rows = new Map<number, string>();

describe.each(FAULTS)('$behaviour', (fault) => {
	test(`ends as ${fault.expected}, never sent twice`, async () => {
		const api = await startApiServer(scripted(fault));
		try {
			const result = await runSendNode({
				baseUrl: api.baseUrl,
				items: [{ phone: '+62 812 3456 7890' }],
				parameters: { phoneNumber: '={{ $json.phone }}', templateCodeId: 'tpl-fault', options: { timeout: 1000, maxAttempts: 3 } },
				onError: 'continueRegularOutput',
			});
			const [item] = result.output(SEND_NODE);
			const details = (item.json.details ?? {}) as IDataObject;
			const outcome = item.json.success === true ? 'sent' : details.delivery;
			const accepted = api.requests.filter((request) => request.answer === 200 && fault.replies[api.requests.indexOf(request)] === undefined).length;

			expect(outcome).toBe(fault.expected);
			expect(accepted).toBeLessThanOrEqual(1);
			if (outcome === 'sent') expect(accepted).toBe(1);
			if (outcome === 'unknown') expect(api.requests).toHaveLength(1);

			const attempts = item.json.attempts ?? details.attempts;
			const says = outcome === 'sent' ? `sent, msgid \`${String(item.json.msgid).replace(/\d+$/, 'N')}\`` : `\`${String(item.json.error)}\``;
			rows.set(FAULTS.indexOf(fault), `| ${fault.behaviour} | **${outcome}** | ${attempts} | ${api.requests.length} | ${says} |`);
		} finally {
			await api.close();
		}
	});
});

afterAll(() => {
	const table = [
		'# Reliability: what each server behaviour leads to',
		'',
		'Generated by `test/engine/faults.engine.test.ts` (run with `UPDATE_DOCS=1 npm run test:unit -- faults` to rewrite it): one item through the node in n8n\'s engine, *On Error: Continue*, *Max Attempts* 3, *Max Time per Request* 1 s, against a local server scripted per row. "Requests" is what the server received for that recipient.',
		'',
		'| Server behaviour | Outcome | Attempts | Requests | What the item says |',
		'|---|---|---|---|---|',
		...[...rows.keys()].sort((a, b) => a - b).map((index) => rows.get(index)!),
		'',
		'- **sent**: accepted exactly once (retries happen only while the message was certainly not accepted: 429, 503, a 500 with the provider\'s internal-error code 13, or no connection). 429s do not count against *Max Attempts*: a message is tried again for as long as *Max Wait When Throttled* lasts, then comes out not sent with the reason; after nothing but 429s for that long the run stops asking. A 429 with the provider\'s code 45 or 5 is that refusal, not tried again.',
		'- **failed**: the server said no (or kept saying "not now"); the message was not sent, and the item carries the server\'s own reason.',
		'- **unknown**: the message may have been accepted (reset or timeout after the request went out, a gateway error, an unreadable 2xx). It is not sent again, to avoid a duplicate; *Options → Retry Unknown Deliveries* changes that, at the price of possible duplicates; a message tried again that way stays **unknown** whatever the later attempts say (a refusal, a wait beyond *Max Wait When Throttled*: the first may have been taken), and n8n\'s *Retry On Fail* does not post it again.',
		'- Gateway statuses: 502, 504 and 520 to 527 come from a proxy or gateway in front of the API (Cloudflare\'s 52x among them) and can follow a request it had already passed on (524: the origin took the request and then timed out), so they are **unknown**; so is Envoy\'s 503 that says the connection broke after it passed the request on (`…reset before headers. reset reason: connection termination`), while its 503 for a failed connection, like any other 503, is tried again; and so are the 503 pages of Varnish and Fastly (`Guru Meditation`, `first byte timeout`, `Backend fetch failed`) and of Heroku\'s router (`Application Error`), which answer so whether or not the API had the request. A **500** is read by its body: in the provider\'s own error shape (`{"errors":[{"message","code"}]}`) it is the API saying it failed the request, so **failed** (with its internal-error code 13 it surely was not taken and is tried again first); any other 500 (an HTML or text page, an empty body) may be a proxy\'s after it forwarded the request, so **unknown**. Guessing "failed" there could send a message twice; guessing "unknown" costs one item the user checks by hand. One of the provider\'s documented codes (docs/errors.md) in its error shape is the API\'s own answer at any status, a 2xx without `success: true` and a gateway status included (a redirect after a send, only for some: next item): that refusal, not taken, and its code decides what stops (code 45 at a 500 stops every message as a refused token does, not as an API failing). Not its internal error (13): that says the API failed, and behind a 2xx or a gateway\'s status, nothing of whether the message went out.',
		'- Redirects are never followed (that would re-post the message and the token wherever the server points). A 303 comes after a server handled a POST, so the message may have been taken; every other 3xx means the Base URL is wrong, which holds for every message: the run stops sending (see "When the API refuses everything" in [sending.md](sending.md)). A redirect whose body carries one of the provider\'s documented codes (not its internal error, 13) is the API answering, and its code decides (a 303 with code 45 is a refused token, not a delivery unknown); after a send, only for the codes that refuse before any message is handled (the token, the balance, too many requests): beside a recipient\'s or a template\'s code, a redirect after a send is read as one (a 303 unknown).',
		'- Answers are read to at most 1 MB, and an error body is kept only to a bounded depth and size; *Max Time per Request* bounds the whole attempt, from the request to the last byte of the answer.',
		'',
		'## A whole run\'s bad days',
		'',
		'Tested in `test/engine/stopEarly.engine.test.ts` (the node in n8n 2.41, 1.123 and 1.78, with *On Error: Continue*, against a local server), in `test/sandbox/sandbox.test.ts`, and, for every row that is about time (pauses, probes, waits, pace), in `test/flow/flowControl.test.ts` and `test/flow/arrivals.test.ts`: the send stage against a scripted API on a simulated clock, which moves only when every sender waits, so its timings are exact and never flake.',
		'',
		'| What the API does | What the run does |',
		'|---|---|',
		'| Refuses one recipient among 200 (404 with code 33; or 403 in its error shape with a code it does not document, a recipient who blocked the business) | That row fails; the 199 others are sent. The provider\'s code decides before the HTTP status. Only 10 such 403s in a row, with nothing accepted between, stop the run as for the account (3 in a row happen in a list where one recipient in ten blocked the business). |',
		'| Refuses the token, or the balance is empty (codes 45, 5, in any status, a 429 included; a 401; or a 403/404 not in its error shape) | Nothing more is sent; the rest come out `notSent`, naming the refusal. |',
		'| Refuses a template (code 59, also with HTTP 404) | Nothing more with that template; the others go on. |',
		'| Fails for 300 ms (500s in its own error shape) from message 100 of 400 | The messages that met it are tried again: all 400 sent. With *Max Attempts* 1, only the messages sent during the hiccup fail; sending pauses, one probe after 1 s is answered, every other row is sent, and a hint says the run paused. |',
		'| 429s whose `X-RateLimit-Reset` lies in the past (its clock behind) | The node waits its own second before trying again, not zero. |',
		'| Answers with its clock an hour ahead (its `Date` header) and a Reset a second later on that clock | The wait is measured on the server\'s own clock: the run waits about a second, not an hour. |',
		'| Fails throughout | After 5 failures in a row, probes after 1, 2, 4… s (up to 30 s), the last one when the API has failed for *Max Wait for the API to Recover* (120 s; tested at 3 s: probes at 1.16 s and 3 s); then the run stops, and says for how long. |',
		'| 429s for 4 s (`Retry-After: 1`) over 40 items | All 40 sent once: 429s pause and slow the run; they stop it only after nothing but 429s for *Max Wait When Throttled* (below). |',
		'| An account whose limit another sender mostly uses (85% of each second) | Every message sent, at the rate left. |',
		'| Another sender uses 80% of the account, and `X-RateLimit-Remaining` shows it | The pace takes the whole 5 a second left: 1,000 rows within 1.1 × their ideal time at that rate, with no 429 (on the simulated clock). |',
		'| Keeps throttling one recipient | That item alone comes out `notSent` after *Max Wait When Throttled*, with the reason; the others go. |',
		'| Answers nothing but 429s for *Max Wait When Throttled* (200 items, 20 s; `Retry-After: 1` or `15`, or a full window at a share of 1 a second) | The run stops asking then, or at the end of the last wait the API asked for: every item not sent says the API answered nothing but "too many requests" for that long. Each item\'s budget alone would have begun at its own first request (200 items: 285 to 417 s). |',
		'| Answers 503 with `Retry-After: 100` throughout (the defaults) | A message is tried again after the wait asked while the API has failed for no longer than *Max Wait for the API to Recover*: the run stops at about 120 s, and n8n\'s log and a hint say it waited (was 802 s, silently: every message waited out each Retry-After up to *Max Attempts*). |',
		'| `X-RateLimit-Remaining: 0` with a Reset 600 s ahead | The waiting items come out `notSent` at once, with the reason, instead of holding silently. |',
		'| A 429 asking for longer than *Max Wait When Throttled* (`Retry-After: 300` with 5 s; a Reset two hours away with the default 120 s), 200 items at concurrency 10 | Every item comes out `notSent`, with the reason; no request leaves but those already on their way (at most 10): the 429 holds every sender, and one that may not wait that long gives up before sending. |',
		'| Refuses 50 recipients in a row, each with HTTP 401 and a recipient\'s code (33) | The code says "this recipient", the status "this account". Identical refusals from 3 recipients in a row, with nothing accepted between, are not about the recipients: the run stops as for the account (at most the requests on their way follow), and says why. With HTTP 404 and code 33 (the code and the status agree) every recipient is tried. |',
		'| Answers 2xx with `success: true` and a numeric `msgid` | Sent; the msgid is kept as its text. A 2xx the node cannot read as accepted is `unknown` for that item, but never counts as the API failing. |',
		'| Asks for a wait of 5 s or more | One line in n8n\'s log and one hint in the output panel. |',
		'| Announces `X-RateLimit-Limit: 2` in one execution | That execution goes at 2 a second; the next one starts at the setting again. |',
		'| Lowers `X-RateLimit-Limit` to 5 mid-run, then raises it again | The pace follows it down, and back up to the setting. |',
		'| `X-RateLimit-Remaining: 0` with 5 or 10 senders at once, while another sender uses the account | Every sender waits for the Reset, those already holding a slot too: the only 429s are requests that left while the answer saying Remaining 0 was on its way back (none with one sender). |',
		'| `X-RateLimit-Remaining: 0` on every answer of a run exactly at the limit (a strict sliding or fixed window) | No pause and no 429: the pace\'s own record explains the zero and holds each request until a slot frees (`test/flow/arrivals.test.ts`). |',
		'| `X-RateLimit-Reset` in whole seconds (`1`), in milliseconds (`962`), or absent | Every row sent, no 429, within 2% of the ideal time: a Reset given as a delay is one window at most. |',
		'| The first request reaching the API 60 ms late, or a few held up 35 ms now and then | No 429 against a strict window: the record learns each request\'s lateness from its answer\'s time. |',
		'| One 429 at the window\'s edge (`Retry-After: 1`) while the pace alone fills the window | Only that request waits for the next free slot; the pace is not cut, the summary says the 429 came at the window\'s edge. |',
		'| Queue-mode workers left at the default *Max Messages per Second* on one account (2, 4 or 8 started together; 2 or 4 one after another) | Each takes its share from the headers: others\' rise at once as far as an answer proves it (a late answer makes the node\'s own count in the window uncertain), a step up only into room every answer since showed; a 429 at a worker\'s share holds only that request until a slot frees (the summary says other senders used the window too), one below it takes one request off the share, and no one pauses; a slot is taken at most half a second ahead, so a share that rises is used at once. 429s under 2% of requests (`test/flow/arrivals.test.ts`; the real n8n in docs/sending.md). |',
		'| `X-RateLimit-Remaining: 0` from others, with a Reset of a whole second, in milliseconds, or none | While sharing, every sender waits one slot, not a second: the next answer tells. |',
		'',
	].join('\n');
	const file = path.join(PACKAGE_ROOT, 'docs', 'reliability.md');
	// Under a filter (or with a fault's test failing), the rows that ran are each checked against the doc's.
	if (rows.size !== FAULTS.length) {
		const documented = readFileSync(file, 'utf8').split('\n');
		for (const row of rows.values()) expect(documented).toContain(row);
	} else if (process.env.UPDATE_DOCS === '1') writeFileSync(file, table);
	else expect(readFileSync(file, 'utf8')).toBe(table);
});
