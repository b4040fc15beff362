'use strict';
/**
 * A local stand-in for the messaging API (`POST /api/v2/push/message`, JWT in Authorization),
 * for trying the node without an account. It checks each request against the spec, answers like
 * the spec's success response, and keeps what it received:
 *   GET /               a page listing received messages (refreshes itself)
 *   GET /api/messages   the same as JSON;  DELETE /api/messages  forgets them
 *   DELETE /api/busiest-second   starts stats.busiestSecond again
 *   GET /api/v2/message/{msgid}/status   a message's status, as the provider's status lookup
 *                       answers it: each accepted message follows a scripted lifecycle (see
 *                       STATUS_SCRIPT), an unknown msgid is 404 code 33; same token and rate limit
 *                       as sends
 * Settings (environment): SANDBOX_PORT (5680), SANDBOX_TOKEN (sandbox-token),
 * SANDBOX_LATENCY_MS (0), SANDBOX_RATE_LIMIT (messages per second, 0 = none), SANDBOX_SHARED_SHARE
 * (0 to 1: the share of that limit another sender on the same account uses, so that only the rest
 * is left while the headers announce the whole limit), SANDBOX_RATE_WINDOW (sliding: at most the
 * limit in any one second; fixed: in each whole second), SANDBOX_RATE_RESET (X-RateLimit-Reset's
 * form: fraction `0.040` s, seconds `1`, ms `40`, none), SANDBOX_TLS_KEY and SANDBOX_TLS_CERT (PEM
 * files: HTTPS instead of HTTP). The limit counts requests as they arrive; SANDBOX_LATENCY_MS delays
 * the answer of each send and status lookup after that.
 *
 * Its stats also say how the sends arrived, for the benchmark: `connections` (TCP connections that
 * carried a send), `windowMs` (from the first send's arrival to the last send's answer) and
 * `inFlightMs` (the time integral of sends in flight: divided by windowMs, the average in flight),
 * and `busiestSecond` (the most requests with the token, sends and lookups, that arrived in any one second).
 *
 * It answers the way the provider behind the spec documents: `{"errors":[{"message","code"}]}`
 * with its codes (43/45 for a missing or wrong token, 39 for parameters that do not fit, 9 past
 * the rate limit with X-RateLimit-* headers on every answer), and on demand:
 *   a template code id containing "missing"        406, code 59 (template does not exist)
 *   values that do not fit a template it knows      406, code 39 (see templates.js)
 *   a phone number starting +62 8000               406, code 5 (balance too low)
 *   a phone number starting +62 8033               404, code 33 (data does not exist: this recipient)
 * and, for the status lookup of a message it accepted:
 *   a phone number ending 1340                     rejected after 2 s, code 1340 (Send Outside Allowed Window)
 *   a phone number ending 0000                     submitted, for ever
 *   any other                                      submitted, delivered after 2 s, read after 4 s
 * `now` (option): the sandbox's clock, for tests; Date.now unless given.
 * Listens on 127.0.0.1 only. Not part of the published package.
 */
const { readFileSync } = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const { performance } = require('node:perf_hooks');
const { randomUUID } = require('node:crypto');
const { busiestSecond, rateLimitHeaders, rateWindow } = require('./rateLimit');
const { TEMPLATES, renderMessage, templateMismatch } = require('./templates');
const { validateSendRequest } = require('./validate');

/** The token the sandbox takes unless told another: `npm start`'s demo credential carries it. */
const DEFAULT_TOKEN = 'sandbox-token';

function createSandbox({ token = DEFAULT_TOKEN, latencyMs = 0, rateLimit = 0, sharedShare = 0, rateWindow: windowKind = 'sliding', resetForm = 'fraction', tls, now = Date.now } = {}) {
	const messages = [];
	/** Accepted messages by msgid, with when they were accepted on the sandbox's clock. */
	const accepted = new Map();
	/** The last 200 refused requests, with what the sandbox answered. */
	const refused = [];
	const stats = { received: 0, accepted: 0, rejected: 0, rateLimited: 0, unauthorized: 0, lookups: 0, lookupsRateLimited: 0, inFlight: 0, peakInFlight: 0, connections: 0, windowMs: 0, inFlightMs: 0, busiestSecond: 0 };
	const traffic = trafficMeter(stats);
	// What another sender on the account leaves of the limit; the headers still announce all of it.
	const left = Math.max(1, Math.round(rateLimit * (1 - Math.min(Math.max(sharedShare, 0), 1))));
	const withinLimit = rateLimit > 0 ? rateWindow(left, windowKind) : () => true;
	const arrivals = busiestSecond();

	const json = (res, status, body, headers = {}) => {
		res.writeHead(status, { 'content-type': 'application/json', ...headers });
		res.end(JSON.stringify(body));
	};
	const error = (res, status, message, code, headers) => json(res, status, { success: false, errors: [{ message, code }] }, headers);
	/** The provider's rate-limit headers as they stand at `at`, on every answer of the API when a limit is set. */
	const rateHeaders = (at) => (rateLimit > 0 ? rateLimitHeaders(rateLimit, withinLimit.window(at), resetForm) : {});
	/**
	 * The limit counts a request when it arrives, as a provider's gateway does, before the latency of
	 * its answer: `allowed`, and the headers as they stood then. Requests without the token are not counted.
	 */
	const admit = (req, arrivedAt) => {
		if (req.headers.authorization !== token) return { allowed: true, headers: rateHeaders(arrivedAt) };
		arrivals(arrivedAt);
		stats.busiestSecond = arrivals.most();
		const allowed = withinLimit(arrivedAt);
		return { allowed, headers: rateHeaders(arrivedAt) };
	};

	const handleSend = (req, res, raw, admission) => {
		stats.received++;
		const refuse = (status, message, code, kind = 'rejected', headers = {}) => {
			stats[kind]++;
			// n8n's credential test posts an empty object on purpose (some versions send no body at
			// all): it is listed as what it is.
			const probe = code === 39 && (raw.trim() === '' || raw.trim() === '{}');
			refused.push({ receivedAt: new Date().toISOString(), status, code, message, probe, request: raw.length > 2000 ? `${raw.slice(0, 2000)}…` : raw });
			if (refused.length > 200) refused.shift();
			return error(res, status, message, code, { ...admission.headers, ...headers });
		};
		if (!req.headers.authorization) return refuse(401, 'Token not supplied', 43, 'unauthorized');
		if (req.headers.authorization !== token) return refuse(401, 'Token invalid', 45, 'unauthorized');
		if (!admission.allowed) return refuse(429, `Too many requests: more than ${left === rateLimit ? rateLimit : `the ${left} left of ${rateLimit}`} per second`, 9, 'rateLimited', { 'retry-after': '1' });
		let body;
		try {
			body = JSON.parse(raw);
		} catch {
			return refuse(406, 'Body is not valid JSON', 39);
		}
		const problems = validateSendRequest(body);
		if (problems.length > 0) return refuse(406, problems.join('; '), 39);
		if (String(body.message.template.template_code_id).includes('missing')) return refuse(406, 'Template does not exist', 59);
		if (/^\+?628000/.test(String(body.phone_number))) return refuse(406, 'Balance is not enough', 5);
		if (/^\+?628033/.test(String(body.phone_number))) return refuse(404, 'Data does not exist', 33);
		const mismatch = templateMismatch(body.message.template.template_code_id, body.message.template.payload);
		if (mismatch) return refuse(406, `message_value is not same as the template: ${mismatch}`, 39);
		const msgid = randomUUID();
		stats.accepted++;
		messages.push({ msgid, receivedAt: new Date().toISOString(), request: body });
		accepted.set(msgid, { at: now(), phone: String(body.phone_number) });
		return json(res, 200, { msgid, success: true }, admission.headers);
	};

	/** The status lookup: the same token and rate limit as a send; the lifecycle is the sandbox's clock's. */
	const handleStatus = (req, res, encoded, admission) => {
		stats.lookups++;
		const headers = () => admission.headers;
		if (!req.headers.authorization) return error(res, 401, 'Token not supplied', 43, headers());
		if (req.headers.authorization !== token) return error(res, 401, 'Token invalid', 45, headers());
		if (!admission.allowed) {
			stats.lookupsRateLimited++;
			return error(res, 429, `Too many requests: more than ${rateLimit} per second`, 9, { ...headers(), 'retry-after': '1' });
		}
		let msgid;
		try {
			msgid = decodeURIComponent(encoded);
		} catch {
			msgid = encoded;
		}
		const message = accepted.get(msgid);
		if (!message) return error(res, 404, 'Data does not exist', 33, headers());
		const { history, additionalInfo } = statusAt(message, now());
		const body = { msgid, phone_number: `+${message.phone.replace(/^\+/, '')}`, history_status: history };
		if (additionalInfo) body.additional_info = additionalInfo;
		return json(res, 200, body, headers());
	};

	const handler = (req, res) => {
		const path = (req.url || '/').split('?')[0];
		const sending = req.method === 'POST' && path === '/api/v2/push/message';
		const status = req.method === 'GET' ? /^\/api\/v2\/message\/([^/]+)\/status$/.exec(path) : null;
		const admission = sending || status ? admit(req, now()) : undefined;
		if ((req.url || '').startsWith('/api/v2/push/message')) traffic.send(req, res);
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			const raw = Buffer.concat(chunks).toString('utf8');
			const route = () => {
				if (sending) return handleSend(req, res, raw, admission);
				if (status) return handleStatus(req, res, status[1], admission);
				if (req.method === 'GET' && path === '/api/messages') return json(res, 200, { stats, messages, refused });
				if (req.method === 'DELETE' && path === '/api/messages') {
					messages.length = 0;
					accepted.clear();
					refused.length = 0;
					Object.keys(stats).forEach((key) => key !== 'inFlight' && (stats[key] = 0));
					traffic.reset();
					arrivals.reset();
					return json(res, 200, { cleared: true });
				}
				// The benchmark's runs each read their own busiest second, the messages kept for its lookups.
				if (req.method === 'DELETE' && path === '/api/busiest-second') {
					arrivals.reset();
					stats.busiestSecond = 0;
					return json(res, 200, { cleared: true });
				}
				if (req.method === 'GET' && path === '/') {
					res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
					const latest = (msgid) => accepted.has(msgid) && statusAt(accepted.get(msgid), now()).history.pop()?.status;
					const baseUrl = `${tls ? 'https' : 'http'}://${req.headers.host}`;
					return res.end(renderPage(messages.map((message) => ({ ...message, status: latest(message.msgid) })), refused, stats, { baseUrl, token }));
				}
				return error(res, 404, `No route ${req.method} ${path}`, 404);
			};
			if (latencyMs > 0 && admission) setTimeout(route, latencyMs);
			else route();
		});
	};
	const server = tls ? https.createServer({ key: tls.key, cert: tls.cert }, handler) : http.createServer(handler);
	return { server, messages, refused, stats };
}

/**
 * Each accepted message's lifecycle, by its recipient's last digits: the statuses it reaches and how
 * long after it was accepted. `info`: the provider's additional_info once that status is reached.
 */
const STATUS_SCRIPT = [
	{ ending: /1340$/, steps: [{ afterMs: 0, status: 'submitted' }, { afterMs: 2000, status: 'rejected', info: { code: 1340, reason: 'Send Outside Allowed Window' } }] },
	{ ending: /0000$/, steps: [{ afterMs: 0, status: 'submitted' }] },
	{ ending: /$/, steps: [{ afterMs: 0, status: 'submitted' }, { afterMs: 2000, status: 'delivered' }, { afterMs: 4000, status: 'read' }] },
];

/** What the lookup answers for `message` at `time`: the steps reached, oldest first. */
function statusAt(message, time) {
	const { steps } = STATUS_SCRIPT.find(({ ending }) => ending.test(message.phone));
	const reached = steps.filter((step) => message.at + step.afterMs <= time);
	return {
		history: reached.map((step) => ({ timestamp: new Date(message.at + step.afterMs).toISOString(), status: step.status })),
		additionalInfo: reached.map((step) => step.info).filter(Boolean).pop(),
	};
}

/** Keeps stats' traffic figures: sends in flight, the connections they came on, and their time window. */
function trafficMeter(stats) {
	let sockets = new WeakSet();
	let firstArrival;
	let lastChange = 0;
	const advance = () => {
		const now = performance.now();
		stats.inFlightMs += stats.inFlight * (now - lastChange);
		lastChange = now;
		return now;
	};
	return {
		send(req, res) {
			const now = advance();
			firstArrival ??= now;
			if (!sockets.has(req.socket)) {
				sockets.add(req.socket);
				stats.connections++;
			}
			stats.inFlight++;
			stats.peakInFlight = Math.max(stats.peakInFlight, stats.inFlight);
			res.once('close', () => {
				stats.windowMs = advance() - firstArrival;
				stats.inFlight--;
			});
		},
		reset() {
			sockets = new WeakSet();
			firstArrival = undefined;
			advance();
		},
	};
}

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

function describeComponent(component) {
	const params = component.parameters || [];
	if (component.position === 'body') return `Body: ${params.map((p, i) => `{{${i + 1}}} = “${escape(p.text)}”`).join(', ')}`;
	if (component.position === 'header') {
		const p = params[0] || {};
		return p.type === 'text' ? `Header text: “${escape(p.text)}”` : `Header ${escape(p.type)}: <a href="${escape(p[p.type]?.url)}">${escape(p[p.type]?.url)}</a>`;
	}
	return params
		.map((b) => {
			const inner = (b.parameters || [])[0] || {};
			const kind = (b.sub_type ?? b.sub_types) === 'quick_reply' ? 'quick reply' : 'dynamic URL';
			return `Button ${escape(b.index)} (${kind}): “${escape(inner.payload ?? inner.text)}”`;
		})
		.join('<br>');
}

/** The message as the recipient reads it, above its parameters, when the sandbox knows the template. */
function rendered(request) {
	const text = renderMessage(request.message.template.template_code_id, request.message.template.payload);
	return text === undefined ? '' : `<div class="message">${escape(text).replace(/\n/g, '<br>')}</div>`;
}

/** What a newcomer making a credential or a node by hand needs: the address, the token and the templates' codes. */
function byHand({ baseUrl, token }) {
	const templates = Object.entries(TEMPLATES)
		.map(([code, { bodyText }]) => `<li><code>${escape(code)}</code>: ${escape(bodyText)}</li>`)
		.join('');
	return `<h2>By hand</h2><p>A <b>Template Message API</b> credential: Base URL <code>${escape(baseUrl)}</code>, JWT <code>${escape(token)}</code>. Template Code IDs it checks values against (any other code is taken unchecked; one containing <code>missing</code> is refused, code 59):</p><ul>${templates}</ul>`;
}

function renderPage(messages, refused, stats, access) {
	const rows = messages
		.slice()
		.reverse()
		.map(
			({ msgid, receivedAt, request, status }) => `<tr><td>${escape(receivedAt.replace('T', ' ').slice(0, 19))}</td><td>+${escape(request.phone_number.replace(/^\+/, ''))}</td>
<td><code>${escape(request.message.template.template_code_id)}</code></td><td>${rendered(request)}${request.message.template.payload.map(describeComponent).join('<br>') || '(no parameters)'}</td><td><small>${escape(msgid)}</small></td><td>${escape(status || '')}</td></tr>`,
		)
		.join('\n');
	const refusedRows = refused
		.slice()
		.reverse()
		.map(
			({ receivedAt, status, code, message, probe, request }) =>
				`<tr><td>${escape(receivedAt.replace('T', ' ').slice(0, 19))}</td><td>${probe ? 'The credential’s connection test (an empty request, refused on purpose: the token was accepted)' : `HTTP ${status}, code ${code}: ${escape(message)}`}</td><td><code>${escape(request)}</code></td></tr>`,
		)
		.join('\n');
	return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="3"><title>Template Message sandbox</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#1d2b24}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.5rem;text-align:left;vertical-align:top}th{background:#eaf6ef}.message{background:#dcf8c6;border-radius:.5rem;padding:.5rem .75rem;margin-bottom:.5rem;max-width:32rem}</style></head>
<body><h1>Template Message sandbox</h1><p>Received ${stats.received}, accepted ${stats.accepted}, refused ${stats.rejected}, wrong token ${stats.unauthorized}, rate limited ${stats.rateLimited}. Newest first; the page refreshes every 3 s.</p>
<p>Status lookups (<code>GET /api/v2/message/{msgid}/status</code>, the node's Get Status): ${stats.lookups}. Each message is submitted, delivered after 2 s and read after 4 s; a recipient number ending 1340 is rejected after 2 s (code 1340, Send Outside Allowed Window), one ending 0000 stays submitted.</p>
<table><tr><th>Received</th><th>Recipient</th><th>Template</th><th>Parameters</th><th>msgid</th><th>Status now</th></tr>${rows || '<tr><td colspan="6">No message yet: run a workflow with the Template Message node.</td></tr>'}</table>
<h2>Refused</h2><table><tr><th>Received</th><th>Answer</th><th>Request</th></tr>${refusedRows || '<tr><td colspan="3">Nothing refused.</td></tr>'}</table>
${byHand(access)}</body></html>`;
}

/** The sandbox's behaviour as SANDBOX_* variables set it (docs/development.md), for its own process and for `npm start`. */
function settingsFromEnv(env) {
	return {
		token: env.SANDBOX_TOKEN || DEFAULT_TOKEN,
		latencyMs: Number(env.SANDBOX_LATENCY_MS || 0),
		rateLimit: Number(env.SANDBOX_RATE_LIMIT || 0),
		sharedShare: Number(env.SANDBOX_SHARED_SHARE || 0),
		rateWindow: env.SANDBOX_RATE_WINDOW || 'sliding',
		resetForm: env.SANDBOX_RATE_RESET || 'fraction',
	};
}

if (require.main === module) {
	const port = Number(process.env.SANDBOX_PORT || 5680);
	const { SANDBOX_TLS_KEY: keyFile, SANDBOX_TLS_CERT: certFile } = process.env;
	const { server } = createSandbox({
		...settingsFromEnv(process.env),
		tls: keyFile && certFile ? { key: readFileSync(keyFile), cert: readFileSync(certFile) } : undefined,
	});
	const scheme = keyFile && certFile ? 'https' : 'http';
	server.listen(port, '127.0.0.1', () => console.log(`Sandbox API on ${scheme}://127.0.0.1:${port} (messages at ${scheme}://127.0.0.1:${port}/)`));
	const stop = () => server.close(() => process.exit(0));
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

module.exports = { createSandbox, settingsFromEnv, DEFAULT_TOKEN };
