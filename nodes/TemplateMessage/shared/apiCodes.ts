import type { Outcome, RefusalScope } from './contracts';
import { CREDENTIAL_DISPLAY_NAME } from './contracts';
import { optionPath } from './options';

interface ApiCode {
	meaning: string;
	hint: string;
	scope: RefusalScope;
	/** The API asking to slow down: waited out and tried again like a 429, at whatever HTTP status it comes. */
	throttle?: true;
	/** The token itself was refused (the credential test says so, whatever the status). */
	tokenRefused?: true;
}

/** The API's own failure, "try again later": worth a retry when it comes with a 500. */
export const INTERNAL_ERROR_CODE = 13;
/** "Data does not exist": for a status lookup, the msgid is unknown. */
export const NOT_FOUND_CODE = 33;

/** The codes the provider behind the spec documents; other servers keep the generic texts. */
export const API_CODES: Record<number, ApiCode> = {
	5: { meaning: 'the account balance is too low', hint: 'Top up the account balance in the developer dashboard, then send the items that were not sent again.', scope: 'account' },
	9: { meaning: 'too many requests', hint: `The API limits how fast messages are sent: lower ${optionPath('maxPerSecond')}.`, scope: 'item', throttle: true },
	[INTERNAL_ERROR_CODE]: { meaning: 'an internal error of the API', hint: 'The API failed while handling this message. Try this item again later.', scope: 'item' },
	17: { meaning: 'the authentication credentials are invalid', hint: `Check the JWT in the ${CREDENTIAL_DISPLAY_NAME} credential (copy it again from the developer dashboard).`, scope: 'account', tokenRefused: true },
	19: { meaning: 'the Authorization header is missing', hint: `The JWT did not reach the API: check the ${CREDENTIAL_DISPLAY_NAME} credential, and any proxy between n8n and the API.`, scope: 'account', tokenRefused: true },
	[NOT_FOUND_CODE]: { meaning: 'the data does not exist', hint: 'Something this message refers to does not exist at the provider: check the template code id and the recipient.', scope: 'item' },
	39: { meaning: 'wrong or missing parameters: the values do not match the template', hint: 'Give exactly one body value per placeholder of the template, and header and button values only where the template has them.', scope: 'item' },
	43: { meaning: 'no token was supplied', hint: `Enter the JWT in the ${CREDENTIAL_DISPLAY_NAME} credential.`, scope: 'account', tokenRefused: true },
	45: { meaning: 'the token is invalid', hint: 'The JWT was rejected: it may have expired. Copy a new one from the developer dashboard into the credential.', scope: 'account', tokenRefused: true },
	59: { meaning: 'the template does not exist', hint: 'Check the Template Code ID (it looks like <id>:<template_name>) and that the template is Approved in the developer dashboard.', scope: 'template' },
};

export function apiCodeInfo(code: number | string | undefined): ApiCode | undefined {
	return typeof code === 'number' ? API_CODES[code] : undefined;
}

/**
 * One of the provider's documented codes that is its answer to this request (a refused token, no balance, no such
 * template, too many requests), at whatever HTTP status it comes; not its internal error (13), which says the API failed
 * and, behind a gateway's status, nothing of whether the message went out.
 */
export function isApiAnswer(code: number | string | undefined): boolean {
	return code !== INTERNAL_ERROR_CODE && apiCodeInfo(code) !== undefined;
}

/**
 * The API asking to slow down: code 9 (too many requests) with any status, a 200 with `success: false`
 * included, or HTTP 429 without another of the provider's answers. The code decides before the status,
 * as everywhere: a 429 with code 45 (a refused token) or 5 (no balance) is that refusal, which waiting
 * never ends.
 */
export function isThrottle(statusCode: number | undefined, code: number | string | undefined): boolean {
	const documented = apiCodeInfo(code);
	if (documented?.throttle === true) return true;
	return statusCode === 429 && !isApiAnswer(code);
}

/** An answer the flow waits out (FlowControl.answered): never a refusal, never a failure of the API. */
export function throttled(outcome: Outcome): boolean {
	return outcome.kind === 'rejected' && isThrottle(outcome.statusCode, outcome.apiCode);
}

/**
 * A documented code decides first, whatever the status: the provider sends 404 with code 33 for a
 * missing recipient and with 59 for a missing template. An undocumented code in its error shape is
 * this message refused (a 403 for a recipient who blocked the business), unless a 401: the credential
 * failed. Without that shape, a 401, 403 or 404 (an HTML 404 is a wrong Base URL) holds for every message.
 */
export function refusalScope(outcome: Outcome): RefusalScope {
	if (outcome.kind !== 'rejected') return 'item';
	if (outcome.redirect) return 'account';
	const documented = apiCodeInfo(outcome.apiCode);
	if (documented) return documented.scope;
	const { statusCode } = outcome;
	if (outcome.apiCode !== undefined) return statusCode === 401 ? 'account' : 'item';
	return statusCode === 401 || statusCode === 403 || statusCode === 404 ? 'account' : 'item';
}
