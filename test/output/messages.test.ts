/**
 * Every message a user can meet, in one place: docs/errors.md is this test's output, built from
 * the real code paths (it fails when the committed page differs; UPDATE_DOCS=1 rewrites it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { IExecuteFunctions, INode } from 'n8n-workflow';

import { API_CODES } from '../../nodes/TemplateMessage/shared/apiCodes';
import { invalidItemError, notSentError, sendFailedError } from '../../nodes/TemplateMessage/output/errors';
import type { FailedOutcome, Refusal, MessageInput } from '../../nodes/TemplateMessage/shared/contracts';
import { InvalidFieldError } from '../../nodes/TemplateMessage/shared/InvalidFieldError';
import { bodyValuesFromList, buildSendRequest } from '../../nodes/TemplateMessage/request/payload';
import { parseTemplate } from '../../nodes/TemplateMessage/request/templateShape';
import { customMessageKey } from '../../nodes/TemplateMessage/request/messageKey';
import { readCredentials } from '../../nodes/TemplateMessage/request/credentials';
import { FIELD } from '../../nodes/TemplateMessage/shared/fieldNames';
import { readMessageInput, readParameter } from '../../nodes/TemplateMessage/request/parameters';
import { templateTextAsWritten } from '../../nodes/TemplateMessage/request/pastedTemplate';
import { throttledByPause } from '../../nodes/TemplateMessage/flow/flowControl';
import { credentialTestVerdict } from '../../nodes/TemplateMessage/api/credentialTest';
import type { TestAnswer } from '../../nodes/TemplateMessage/api/credentialTest';
import { lookupError, statusRows } from '../../nodes/TemplateMessage/output/statusRows';
import { readStatusAnswer } from '../../nodes/TemplateMessage/lookup/statusAnswer';
import type { StatusResult } from '../../nodes/TemplateMessage/shared/status';
import { PACKAGE_ROOT } from '../helpers/engine';

const node: INode = { id: 'n', name: 'Template Message', type: 'n8n-nodes-template-message.templateMessage', typeVersion: 1, position: [0, 0], parameters: {} };
const fields = (overrides: Partial<Extract<MessageInput['components'], { mode: 'fields' }>>): MessageInput['components'] => ({
	mode: 'fields',
	bodyValues: [],
	header: { type: 'none' },
	buttons: [],
	...overrides,
});
const input = (overrides: Partial<MessageInput>): MessageInput => ({ phoneNumber: '+62 812 3456 7890', templateCodeId: 'tpl', components: fields({}), ...overrides });

/** Just enough of n8n's context to read one item's parameters and the credential (dotted names as n8n reads them). */
const context = (parameters: object, credential: object = {}) =>
	({
		getNode: () => node,
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) =>
			name.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], parameters) ?? fallback,
		getCredentials: async () => credential,
	}) as unknown as IExecuteFunctions;
/** n8n's ExpressionError for `$('Shopify Order').item` where no node has that name: its message and context. */
const failingExpression = {
	getNodeParameter: () => {
		throw Object.assign(new Error("Referenced node doesn't exist"), { context: { nodeCause: 'Shopify Order', descriptionKey: 'nodeNotFound' } });
	},
} as unknown as IExecuteFunctions;
const quickReply = (label: string, payload?: string) => ({ kind: 'quickReply', label, ...(payload === undefined ? {} : { payload }) });

const VALIDATION_CASES: Array<[string, () => unknown]> = [
	['Phone Number left empty', () => buildSendRequest(input({ phoneNumber: '' }))],
	['Phone Number with the country code twice', () => buildSendRequest(input({ phoneNumber: '+62 62 812 3456 7890' }))],
	['A local number without country code', () => buildSendRequest(input({ phoneNumber: '0812 3456 7890' }))],
	['Letters in the number', () => buildSendRequest(input({ phoneNumber: '+62 812 CALL ME' }))],
	['Too few digits', () => buildSendRequest(input({ phoneNumber: '+62 812' }))],
	['A bad Default Country Code', () => buildSendRequest(input({ phoneNumber: '0812 3456 7890', defaultCountryCode: '62a' }))],
	['A local number whose leading 0 the sheet dropped', () => buildSendRequest(input({ phoneNumber: 81234567890, defaultCountryCode: '62' }))],
	['A 0 after a country code whose rule the node does not know', () => buildSendRequest(input({ phoneNumber: '+55 011 98765 4321' }))],
	['A number cell beyond 2^53', () => buildSendRequest(input({ phoneNumber: Number('9007199254740993') }))],
	['A number shown with digit grouping', () => buildSendRequest(input({ phoneNumber: '6,281,234,567,890' }))],
	['A dot before zeros alone, or a `.0` after a number grouped otherwise', () => buildSendRequest(input({ phoneNumber: '62 812 3456 7890.0' }))],
	['Another ending after a slash', () => buildSendRequest(input({ phoneNumber: '0812-3456-7890/91' }))],
	['A 0 set apart from the next 0 (not the prefix 00)', () => buildSendRequest(input({ phoneNumber: '(0)0812 3456 7890', defaultCountryCode: '62' }))],
	['A North American number without its country code 1', () => buildSendRequest(input({ phoneNumber: '(212) 555-0100' }))],
	['An extension in brackets', () => buildSendRequest(input({ phoneNumber: '+62 812 3456 7890 (12)' }))],
	['Two 0s after a country code', () => buildSendRequest(input({ phoneNumber: '+39 (0) 06 6982 1234' }))],
	['A (0) after a country code whose 0 is part of the number', () => buildSendRequest(input({ phoneNumber: '+39 (0)347 123 4567' }))],
	["A local number starting with the country's prefix for calling abroad", () => buildSendRequest(input({ phoneNumber: '010 33 1 23 45 67 89', defaultCountryCode: '81' }))],
	['A mapped Default Country Code empty in this row', () => buildSendRequest(input({ phoneNumber: '81234567890', defaultCountryCode: '', phoneSource: { countryCodeMapped: true } }))],
	['A number an AI Agent chose ($fromAI) without +, no Default Country Code', () => buildSendRequest(input({ phoneNumber: '812 3456 7890', phoneSource: { mapped: true, chosenByModel: true } }))],
	['A Message Key beyond 2^53', () => customMessageKey(JSON.parse('1234567890123456789'))],
	['A Message Key with a NUL character', () => customMessageKey('order-1\u0000pending')],
	['A chat link instead of a number', () => buildSendRequest(input({ phoneNumber: 'https://wa.me/6281234567890' }))],
	['An expression that fails for this item (a node it refers to does not exist)', () => readParameter(failingExpression, 'phoneNumber', 3, FIELD.phoneNumber)],
	['Template Code ID empty', () => buildSendRequest(input({ templateCodeId: ' ' }))],
	['Template Code ID with a line break inside', () => buildSendRequest(input({ templateCodeId: 'order_\nconfirmed' }))],
	['A body value left empty', () => buildSendRequest(input({ components: fields({ bodyValues: ['Budi', ''] }) }))],
	['A body value that is an object', () => buildSendRequest(input({ components: fields({ bodyValues: [{ a: 1 }] }) }))],
	['Body values expression that is not a list', () => bodyValuesFromList('Budi')],
	['A media URL that is not http(s)', () => buildSendRequest(input({ components: fields({ header: { type: 'image', url: 'ftp://x/a.png' } }) }))],
	['A media URL that is not a URL', () => buildSendRequest(input({ components: fields({ header: { type: 'image', url: 'cdn.example.com/a.png' } }) }))],
	['A negative button index', () => buildSendRequest(input({ components: fields({ buttons: [{ kind: 'quickReply', index: -1, value: 'yes' }] }) }))],
	['Two buttons with one index', () => buildSendRequest(input({ components: fields({ buttons: [{ kind: 'quickReply', index: 0, value: 'a' }, { kind: 'quickReply', index: 0, value: 'b' }] }) }))],
	['An empty quick reply payload', () => buildSendRequest(input({ components: fields({ buttons: [{ kind: 'quickReply', index: 0, value: '' }] }) }))],
	['An empty URL suffix', () => buildSendRequest(input({ components: fields({ buttons: [{ kind: 'dynamicUrl', index: 0, value: '' }] }) }))],
	['A value left empty in raw JSON (an empty mapped cell)', () => buildSendRequest(input({ components: { mode: 'json', rawPayload: [{ position: 'body', parameters: [{ type: 'text', text: '' }] }] } }))],
	['Raw JSON that does not parse', () => buildSendRequest(input({ components: { mode: 'json', rawPayload: '[{"position": ' } }))],
	['Raw JSON that is not a list', () => buildSendRequest(input({ components: { mode: 'json', rawPayload: '{}' } }))],
	['Raw JSON with a value mapped without quotes that JSON changes', () => buildSendRequest(input({ components: { mode: 'json', rawPayload: '[{"position":"body","parameters":[{"type":"text","text":150000.50}]}]' } }))],
	['Raw JSON with a value that is not an object (null: an unmatched mapping)', () => buildSendRequest(input({ components: { mode: 'json', rawPayload: [{ position: 'body', parameters: [null] }] } }))],
	['Raw JSON with a media URL that is not http(s)', () => buildSendRequest(input({ components: { mode: 'json', rawPayload: [{ position: 'header', parameters: [{ type: 'document', document: { url: 'ftp://x/a.pdf' } }] }] } }))],
	['Raw JSON with a button without sub_type', () => buildSendRequest(input({ components: { mode: 'json', rawPayload: [{ position: 'button', parameters: [{ index: '0', parameters: [{ type: 'payload', payload: 'yes' }] }] }] } }))],
	['A value holding half of an emoji', () => buildSendRequest(input({ components: fields({ bodyValues: ['Hi \ud83d'] }) }))],
	['Raw JSON nested too deep', () => buildSendRequest(input({ components: { mode: 'json', rawPayload: `[${'['.repeat(20)}${']'.repeat(20)}]` } }))],
	['A media URL with a tab, line break or backslash', () => buildSendRequest(input({ components: fields({ header: { type: 'image', url: 'https://cdn.example.com/my\tfile.png' } }) }))],
	['A button index that is not decimal digits', () => buildSendRequest(input({ components: fields({ buttons: [{ kind: 'quickReply', index: '0x1', value: 'yes' }] }) }))],
	['A body value with a line break', () => buildSendRequest(input({ components: fields({ bodyValues: ['Bu\ndi'] }) }))],
	['A body value beyond 2^53', () => buildSendRequest(input({ components: fields({ bodyValues: [Number('12345678901234567890')] }) }))],
	['A value far too long', () => buildSendRequest(input({ components: fields({ bodyValues: ['x'.repeat(5000)] }) }))],
	['A phone number far too long', () => buildSendRequest(input({ phoneNumber: '6'.repeat(100) }))],
	['Template: body values that do not match the placeholders', () => buildSendRequest(input({ components: fields({ bodyValues: ['Budi'] }), template: parseTemplate({ bodyText: 'Hi {{1}}, order {{2}}' }) }))],
	['Template: a header value the template does not take', () => buildSendRequest(input({ components: fields({ header: { type: 'text', text: 'Hi' } }), template: parseTemplate({ headerFormat: 'none' }) }))],
	['Template: another media kind than the header', () => buildSendRequest(input({ components: fields({ header: { type: 'image', url: 'https://cdn.example.com/a.png' } }), template: parseTemplate({ headerFormat: 'video' }) }))],
	['Template: a button the template does not have', () => buildSendRequest(input({ components: fields({ buttons: [{ kind: 'quickReply', index: 2, value: 'yes' }] }), template: parseTemplate({ buttons: [{ kind: 'quickReply' }] }) }))],
	['Template: a value for a call-phone button', () => buildSendRequest(input({ components: fields({ buttons: [{ kind: 'quickReply', index: 0, value: 'yes' }] }), template: parseTemplate({ buttons: [{ kind: 'callPhone' }] }) }))],
	['Template: no value for a dynamic URL button', () => buildSendRequest(input({ template: parseTemplate({ buttons: [{ kind: 'dynamicUrl', label: 'Track' }] }) }))],
	['Template: body text whose placeholders skip a number', () => parseTemplate({ bodyText: 'Hi {{1}}, order {{3}}' })],
	['Template: a pasted text that mixes placeholders with n8n expressions', () => templateTextAsWritten('=Hi {{1}}, from {{ $json.shop }}', 'Hi 1, from Toko Budi', FIELD.templateBody)],
	[
		'Template: button values given in both places',
		() => readMessageInput(context({ phoneNumber: '+62 812 3456 7890', templateCodeId: 'tpl', buttons: { button: [{ kind: 'quickReply', index: 0, payload: 'yes' }] }, template: { buttons: { button: [quickReply('Yes', 'yes')] } } }), 3),
	],
	['Template: one button of the template without its value', () => readMessageInput(context({ phoneNumber: '+62 812 3456 7890', templateCodeId: 'tpl', template: { buttons: { button: [quickReply('Yes', 'yes'), quickReply('No')] } } }), 3)],
	['Template: button values with Using JSON', () => readMessageInput(context({ phoneNumber: '+62 812 3456 7890', templateCodeId: 'tpl', payloadMode: 'json', template: { buttons: { button: [quickReply('Yes', 'yes')] } } }), 3)],
];

/** The HTTP status the provider documents with each code (406 for the others). */
const DOCUMENTED_STATUS: Record<string, number> = { 9: 429, 13: 500, 17: 401, 33: 404, 43: 401, 45: 401 };

const SEND_CASES: Array<[string, FailedOutcome]> = [
	['HTTP 400 with the API reason', { kind: 'rejected', statusCode: 400, transient: false, reason: 'Invalid parameter count (code 21)' }],
	['HTTP 401', { kind: 'rejected', statusCode: 401, transient: false, reason: 'Invalid token' }],
	['HTTP 403', { kind: 'rejected', statusCode: 403, transient: false, reason: 'Forbidden' }],
	['HTTP 404', { kind: 'rejected', statusCode: 404, transient: false, reason: 'Not found' }],
	['HTTP 406 with errors and code', { kind: 'rejected', statusCode: 406, transient: false, reason: 'Template is not approved (code 39)' }],
	['HTTP 429 with the provider\'s code 45 or 5 (that refusal, not a throttle)', { kind: 'rejected', statusCode: 429, apiCode: 45, transient: false, reason: 'Token invalid (code 45)' }],
	['HTTP 500', { kind: 'rejected', statusCode: 500, transient: false, reason: 'Internal error' }],
	[
		"HTTP 503 whose Retry-After goes beyond Max Wait for the API to Recover",
		{ kind: 'rejected', statusCode: 503, transient: true, retryAfterMs: 100_000, reason: 'Service Unavailable (the API asked to wait 1.7 min, after failing for 1.7 min, beyond Max Wait for the API to Recover)' },
	],
	['200 with success: false', { kind: 'rejected', statusCode: 200, transient: false, reason: 'Recipient not on the platform' }],
	['Connection refused', { kind: 'rejected', transient: true, errorCode: 'ECONNREFUSED', reason: 'connection refused' }],
	['Host name not found', { kind: 'rejected', transient: true, errorCode: 'ENOTFOUND', reason: 'host name not found' }],
	['Timeout after sending', { kind: 'unknown', errorCode: 'ECONNABORTED', reason: 'no answer before the timeout' }],
	['HTTP 502 or 504', { kind: 'unknown', statusCode: 502, reason: 'Bad Gateway' }],
	['A 2xx without msgid', { kind: 'unknown', statusCode: 200, reason: 'the API answered HTTP 200 without success: true and a msgid' }],
	['A msgid without success: true (the row keeps the msgid)', { kind: 'unknown', statusCode: 200, msgid: 'm-1', reason: 'the API answered HTTP 200 with a msgid but without success: true' }],
	['A redirect (301, 302, 307, 308)', { kind: 'rejected', statusCode: 307, transient: false, redirect: true, reason: 'the API answered with a redirect (HTTP 307 to https://other.example); redirects are not followed' }],
	['A 303 redirect', { kind: 'unknown', statusCode: 303, reason: 'the API answered with a redirect (HTTP 303 See Other to https://other.example), which follows a handled request; redirects are not followed' }],
	['An answer over 1 MB', { kind: 'unknown', statusCode: 200, reason: "the API's answer was too large to read (5242880 bytes; the node reads at most 1048576 bytes)" }],
	['An answer still coming at the timeout', { kind: 'unknown', statusCode: 200, errorCode: 'ETIMEDOUT', reason: 'no complete answer before the timeout (the API had begun answering HTTP 200)' }],
	// Code 9 (a throttle, whatever the status) never fails an item: see the Not sent table.
	...Object.entries(API_CODES).filter(([, { throttle }]) => !throttle).map(([code, { meaning }]): [string, FailedOutcome] => [
		`API code ${code}`,
		{ kind: 'rejected', statusCode: DOCUMENTED_STATUS[code] ?? 406, apiCode: Number(code), transient: false, reason: `${meaning} (code ${code})` },
	]),
];

const STOP_CASES: Array<[string, Refusal]> = [
	['After an account-wide refusal (401; 403/404 not in the provider\'s error shape; a redirect; codes 5, 17, 19, 43, 45)', { scope: 'account', itemIndex: 0, templateCodeId: 'tpl', statusCode: 401, apiCode: 45, reason: 'Token invalid (code 45)' }],
	['After a template-wide refusal (code 59)', { scope: 'template', itemIndex: 0, templateCodeId: 'tpl-a', statusCode: 406, apiCode: 59, reason: 'Template does not exist (code 59)' }],
	[
		"After the API kept failing for Max Wait for the API to Recover",
		{ scope: 'server', itemIndex: 6, templateCodeId: 'tpl', statusCode: 500, reason: "7 messages in a row failed on the API's side over 2 min, 2 of them after pauses to let it recover, the last one with: Internal error (code 13)" },
	],
	[
		'After the API kept one message waiting beyond Max Wait When Throttled',
		{ scope: 'throttled', itemIndex: 7, templateCodeId: 'tpl', statusCode: 429, apiCode: 9, reason: 'the API kept asking to slow down (HTTP 429: Too many requests (code 9)): after waiting 119 s on 429s, it asked for 5 s more, beyond Max Wait When Throttled (120 s)' },
	],
	[
		'After nothing but 429s for Max Wait When Throttled',
		{ scope: 'throttled', itemIndex: 3, templateCodeId: 'tpl', statusCode: 429, apiCode: 9, reason: 'the API answered nothing but "too many requests" (HTTP 429: Too many requests (code 9)) for 2 min, beyond Max Wait When Throttled (120 s): the run stopped asking' },
	],
	[
		'After code 9 (too many requests) in a 200 asked for longer than Max Wait When Throttled',
		{ scope: 'throttled', itemIndex: 7, templateCodeId: 'tpl', statusCode: 200, apiCode: 9, reason: 'the API kept asking to slow down (HTTP 200: Too many requests (code 9)): it asked for 300 s more, beyond Max Wait When Throttled (120 s)' },
	],
	[
		'After a rate-limit window that resets beyond Max Wait When Throttled',
		throttledByPause(600_000, 'windowUsedUp', 120_000, { itemIndex: 7, templateCodeId: 'tpl' }),
	],
];

const CREDENTIAL_CASES: Array<[string, object]> = [
	['A Base URL with the API\'s own path', { baseUrl: 'https://api.example.com/api/v2', token: 'jwt' }],
	['A Base URL without its scheme', { baseUrl: 'api.example.com', token: 'jwt' }],
	['A Base URL with one slash after its scheme', { baseUrl: 'https:/api.example.com', token: 'jwt' }],
	['A Base URL with a backslash', { baseUrl: 'https://api.example.com/gw\\..', token: 'jwt' }],
	['A Base URL with a character that does not show', { baseUrl: 'https://api.example.com\u200b', token: 'jwt' }],
	['A Base URL that is not a URL', { baseUrl: 'https://api.example.com:99999', token: 'jwt' }],
	['A Base URL with a user name or password', { baseUrl: 'https://user:secret@api.example.com', token: 'jwt' }],
	['A JWT with a line break', { baseUrl: 'https://api.example.com', token: 'eyJ\nabc' }],
	['A Base URL with a query', { baseUrl: 'https://api.example.com/?code=abc', token: 'jwt' }],
	['A Base URL with a fragment', { baseUrl: 'https://api.example.com/#/dashboard', token: 'jwt' }],
	["A Base URL with another API version's path", { baseUrl: 'https://api.example.com/api/v1', token: 'jwt' }],
	['A JWT in quotes', { baseUrl: 'https://api.example.com', token: '"eyJhbGciOiJIUzI1NiJ9.abc"' }],
	['A JWT as "Bearer Bearer …"', { baseUrl: 'https://api.example.com', token: 'Bearer Bearer eyJhbGciOiJIUzI1NiJ9.abc' }],
	['A JWT with a character no token has', { baseUrl: 'https://api.example.com', token: 'eyJhbGciOiJIUzI1NiJ9.abc\u200b' }],
	['A JWT shown cut short', { baseUrl: 'https://api.example.com', token: 'eyJhbGciOiJIUzI1NiJ9.ab\u2026' }],
];

const CREDENTIAL_TEST_CASES: Array<[string, TestAnswer, string?]> = [
	['Accepted: any JSON answer but 401, 403, 404, a redirect, 5xx or a refused-token code', { status: 406 }],
	['Token rejected', { status: 401 }],
	['Token rejected, entered as "Bearer <JWT>"', { status: 401 }, 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x'],
	['Token rejected by the API\'s code, whatever the status (codes 17, 19, 43, 45)', { status: 200, apiCode: 45 }],
	['No send endpoint', { status: 404 }],
	['A redirect', { status: 301 }],
	['The API failing', { status: 503 }],
	["A web page, not the API's JSON (a dashboard, a static host, http:// to an https port)", { status: 405, notJson: '405 Not Allowed (an HTML page)' }],
	['Connection refused', { code: 'ECONNREFUSED', reason: 'connect ECONNREFUSED' }],
	['Host not found', { code: 'ENOTFOUND', reason: 'getaddrinfo ENOTFOUND' }],
	['No answer in time', { code: 'ECONNABORTED', reason: 'timeout of 10000ms exceeded' }],
	['Expired certificate', { code: 'CERT_HAS_EXPIRED', reason: 'certificate has expired' }],
	['Self-signed certificate', { code: 'DEPTH_ZERO_SELF_SIGNED_CERT', reason: 'self-signed certificate' }],
	['Certificate for another host', { code: 'ERR_TLS_CERT_ALTNAME_INVALID', reason: "Hostname/IP does not match certificate's altnames" }],
	['https to a plain http port', { code: 'EPROTO', reason: 'wrong version number' }],
	['Connection closed', { code: 'ECONNRESET', reason: 'socket hang up' }],
	['Another TLS error', { code: 'CERT_REVOKED', reason: 'certificate revoked' }],
	['A JWT no header can carry', { code: 'ERR_INVALID_CHAR', reason: 'Invalid character in header content ["Authorization"]' }],
	['Any other network error', { code: 'EHOSTUNREACH', reason: 'connect EHOSTUNREACH 10.0.0.1:443' }],
];

/** Get Status: a failed or held-back lookup's error, and the reasons of per-row results. */
const LOOKUP_CASES: Array<[string, StatusResult]> = [
	['Token refused (401, any code)', { kind: 'failed', outcome: { kind: 'rejected', statusCode: 401, apiCode: 45, transient: false, reason: 'Token invalid (code 45)' }, attempts: 1 }],
	['Not allowed (403)', { kind: 'failed', outcome: { kind: 'rejected', statusCode: 403, transient: false, reason: 'Forbidden' }, attempts: 1 }],
	['A redirect', { kind: 'failed', outcome: { kind: 'rejected', statusCode: 301, transient: false, redirect: true, reason: 'the API answered with a redirect (HTTP 301 to https://www.example.com); redirects are not followed' }, attempts: 1 }],
	['Any other refusal', { kind: 'failed', outcome: { kind: 'rejected', statusCode: 400, apiCode: 39, transient: false, reason: 'Bad request (code 39)' }, attempts: 1 }],
	['The API failing, after retries', { kind: 'failed', outcome: { kind: 'unknown', statusCode: 502, reason: 'Bad Gateway' }, attempts: 5 }],
	['No connection, after retries', { kind: 'failed', outcome: { kind: 'rejected', errorCode: 'ECONNREFUSED', transient: true, reason: 'connection refused' }, attempts: 5 }],
	[
		"No status endpoint at the Base URL: a 404 not in the API's error shape (an HTML page, other JSON, an empty body)",
		{ kind: 'failed', outcome: { kind: 'rejected', statusCode: 404, transient: false, reason: "the server answered HTTP 404 with an HTML page, not the API's error" }, attempts: 1, noEndpoint: true },
	],
	['After a refused token', { kind: 'heldBack', heldBy: { scope: 'account', itemIndex: 0, templateCodeId: '', statusCode: 401, reason: 'Token invalid (code 45)' }, attempts: 0 }],
	['After the API kept failing', { kind: 'heldBack', heldBy: { scope: 'server', itemIndex: 2, templateCodeId: '', statusCode: 500, reason: "7 messages in a row failed on the API's side over 2 min" }, attempts: 0 }],
	[
		"After a 404 not in the API's error shape",
		{ kind: 'heldBack', heldBy: { scope: 'account', itemIndex: 0, templateCodeId: '', statusCode: 404, reason: "the server answered HTTP 404 with an HTML page, not the API's error" }, attempts: 0 },
	],
	['Throttled beyond Max Wait When Throttled', { kind: 'heldBack', heldBy: throttledByPause(600_000, 'windowUsedUp', 120_000, { itemIndex: 7, templateCodeId: '' }), attempts: 0 }],
];

const ROW_CASES: Array<[string, StatusResult]> = [
	["Unknown msgid (HTTP 404 in the API's error shape, or code 33)", { kind: 'notFound', outcome: { kind: 'rejected', statusCode: 404, apiCode: 33, transient: false, reason: 'Data does not exist (code 33)' }, attempts: 1 }],
	['An answer too large', { kind: 'unreadable', reason: "the API's answer was too large to read (more than 1048576 bytes; the node reads at most 1048576 bytes)", attempts: 1 }],
	...(
		[
			['Not JSON', '<html>Maintenance</html>'],
			['No history', {}],
			['History not a list', { history_status: 'read' }],
			['Unreadable entries and times', { history_status: [{ status: 'read', timestamp: 'yesterday' }, { state: 'x' }] }],
		] as Array<[string, unknown]>
	).map(([name, body]): [string, StatusResult] => [name, { kind: 'status', reading: readStatusAnswer(body, (text) => text), attempts: 1 }]),
	[
		'Wait Until Read: not read by the Wait Limit',
		{
			kind: 'status',
			reading: readStatusAnswer({ history_status: [{ status: 'delivered', timestamp: '2024-03-01T03:23:01Z' }] }, (text) => text),
			attempts: 1,
			wait: { until: 'read', reached: false, asks: 14, waitedMs: 600_000 },
		},
	],
];

function statusLookupLines(): string[] {
	const lines = [
		'',
		'## Get Status: a message the platform refused after the API took it',
		'',
		"A Send's `sent` means the API took the message; the platform can still refuse it afterwards, and only Get Status shows it: `deliveryStatus` `rejected` (or `failed`), `final: true`, with `failureCode` and `failureReason` from the API's `additional_info`.",
		'',
		'| failureCode | failureReason | What it means, and what to do |',
		'|---|---|---|',
		"| 1340 | Send Outside Allowed Window | The platform delivers a message to a recipient only within its customer service window, 24 hours from the recipient's last message to your number, unless it is a template the platform lets open a conversation. Ask the recipient to write to your number first (a quick reply in an earlier message, a link on your site), then send again within 24 hours; or check in the developer dashboard that the template is Approved in a category the platform lets start a conversation. Sending the same row again at once is refused the same way. |",
		'',
		'## Get Status: a lookup that failed',
		'',
		'Without *On Error: Continue* the node stops with the first (a row asked again under *Wait Until* keeps its status instead, and its `reason` says why); with it, the row carries it in `error` (with *Continue (using error output)*, the row goes to the error output as `{ error, details }`) and the other rows are looked up (after a refused token, a wrong Base URL, a failing API or nothing but 429s for *Max Wait When Throttled*, not: they would fail the same way).',
		'',
		'| Case | Message | Hint |',
		'|---|---|---|',
	];
	for (const [name, result] of LOOKUP_CASES) {
		const error = lookupError(node, result, 7)!;
		expect(error.message).toMatch(/ \[item 7\]$/);
		expect(error.description).toBeTruthy();
		lines.push(`| ${name} | \`${cell(error.message)}\` | ${cell(error.description ?? '')} |`);
	}
	lines.push('', '## Get Status: a row without a status (never an error)', '', '| Case | `reason` |', '|---|---|');
	for (const [name, result] of ROW_CASES) {
		const [row] = statusRows(node, [{ itemIndex: 0, result, msgid: 'm-1', phone: null }], false);
		expect(row.json).not.toHaveProperty('error');
		expect(row.json.reason).toBeTruthy();
		lines.push(`| ${name} | \`${cell(String(row.json.reason))}\` |`);
	}
	return lines;
}

const cell = (text: string | undefined) => (text ?? '').replace(/\|/g, '\\|');

test('every message names the item, says what is wrong, and (where it helps) what to do', async () => {
	const lines = [
		'# Messages the node shows',
		'',
		'Generated by `test/output/messages.test.ts` from the node\'s own code (`UPDATE_DOCS=1 npm run test:unit -- messages` rewrites it). "[item 3]" is the index of the input item, counted from 0 as in n8n: item 3 is input row 4, and the hints of bad input say so for the item at hand. With *On Error: Continue* the message is the item\'s `error` and the hint its `details.description`.',
		'',
		'## Before sending: bad input (nothing is sent for the item)',
		'',
		'| Case | Message | Hint |',
		'|---|---|---|',
	];
	for (const [name, run] of VALIDATION_CASES) {
		let caught: unknown;
		try {
			run();
		} catch (error) {
			caught = error;
		}
		expect(caught).toBeInstanceOf(InvalidFieldError);
		const error = invalidItemError(node, caught, 3, undefined);
		expect(error.message).toMatch(/^[A-Z][^:]+: .+ \[item 3\]$/);
		expect(error.context.itemIndex).toBe(3);
		expect(error.description).toBeTruthy();
		expect(error.description).toMatch(/ Item 3 is input row 4 \(n8n counts items from 0\)\.$/);
		lines.push(`| ${name} | \`${cell(error.message)}\` | ${cell((error.description ?? '').replace(/ Item 3 is input row 4 \(n8n counts items from 0\)\.$/, ''))} |`);
	}
	lines.push('', '## Before sending: the credential (nothing is sent in the run)', '', '| Case | Message | Hint |', '|---|---|---|');
	for (const [name, credential] of CREDENTIAL_CASES) {
		const error = await readCredentials(context({}, credential)).then(
			() => undefined,
			(caught: Error & { description?: string }) => caught,
		);
		expect(error?.message).toMatch(/^The credential's /);
		lines.push(`| ${name} | \`${cell(error!.message)}\` | ${cell(error!.description ?? '')} |`);
	}
	lines.push('', "## The credential dialog's connection test", '', '| Case | Message |', '|---|---|');
	for (const [name, probe, token] of CREDENTIAL_TEST_CASES) {
		const verdict = credentialTestVerdict('https://api.example.com', probe, token);
		expect(verdict.status).toBe(name.startsWith('Accepted') ? 'OK' : 'Error');
		lines.push(`| ${name} | \`${cell(verdict.message)}\` |`);
	}
	lines.push('', '## Sending: what the API or the network answered', '', '| Case | Message | Hint |', '|---|---|---|');
	for (const [name, outcome] of SEND_CASES) {
		const error = sendFailedError(node, outcome, 3);
		expect(error.message).toMatch(/\[item 3\]$/);
		expect(error.description).toBeTruthy();
		if (outcome.statusCode !== undefined) expect(error.httpCode).toBe(String(outcome.statusCode));
		lines.push(`| ${name} | \`${cell(error.message)}\` | ${cell(error.description ?? '')} |`);
	}
	lines.push('', '## Not sent: an earlier refusal holds for this item too', '', '| Case | Message | Hint |', '|---|---|---|');
	for (const [name, refusal] of STOP_CASES) {
		const error = notSentError(node, refusal, 7);
		expect(error.message).toMatch(/^Not sent: .+ \[item 7\]$/);
		lines.push(`| ${name} | \`${cell(error.message)}\` | ${cell(error.description ?? '')} |`);
	}
	lines.push(...statusLookupLines());
	lines.push('');
	const page = lines.join('\n');
	const file = path.join(PACKAGE_ROOT, 'docs', 'errors.md');
	if (process.env.UPDATE_DOCS === '1') writeFileSync(file, page);
	else expect(readFileSync(file, 'utf8')).toBe(page);
});
