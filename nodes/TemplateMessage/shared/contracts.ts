import type { ICredentialsDecrypted, IDataObject, NodeOperationError } from 'n8n-workflow';

import type { ItemOptionValues, RunOptionValues } from './options';
import { capitalised } from './words';

// What passes between the node's rooms (request/, send/, lookup/, output/, …). The rooms import
// from here and the other files of shared/, and from each other only downwards
// (test/package/architecture.test.ts).

/** The request body of `POST /api/v2/push/message`, as the spec describes it. */
export interface SendRequestBody {
	phone_number: string;
	message: {
		type: 'template';
		template: {
			template_code_id: string;
			payload: PayloadComponent[];
		};
	};
}

export interface PayloadComponent {
	position: 'header' | 'body' | 'button';
	parameters: object[];
}

export interface ButtonInput {
	kind: unknown;
	index: unknown;
	value: unknown;
	/** Where the editor shows it, when not the node's Buttons (a template button's value). */
	field?: string;
}

/** The naming variants the spec shows side by side (Options → Spelling in the API: …). */
export type CompatibilityOptions = Omit<ItemOptionValues, 'defaultCountryCode'>;

export type ComponentsInput =
	| {
			mode: 'fields';
			bodyValues: unknown[];
			/** `urlAsWritten`: version 1, whose media URL is sent as written (a space refused), not encoded. */
			header: { type: unknown; text?: unknown; url?: unknown; urlAsWritten?: boolean };
			buttons: ButtonInput[];
	  }
	| { mode: 'json'; rawPayload: unknown };

/** Where the Phone Number came from, as far as reading it depends on it. */
export interface PhoneSource {
	/** An expression (a mapped column): an empty value is an empty cell. */
	mapped?: boolean;
	/** Default Country Code is an expression: empty for an item, that item's country is not known. */
	countryCodeMapped?: boolean;
	/** `$fromAI(…)`: an AI Agent chose it, as its tool. */
	chosenByModel?: boolean;
}

export interface MessageInput {
	phoneNumber: unknown;
	defaultCountryCode?: unknown;
	phoneSource?: PhoneSource;
	templateCodeId: unknown;
	components: ComponentsInput;
	compatibility?: Partial<CompatibilityOptions>;
	template?: TemplateShape;
}

/** The template as pasted from the dashboard: never sent, it checks each item and renders the preview. */
export interface TemplateShape {
	/** `placeholders`: how many distinct ones the text has. */
	body?: { placeholders: number; segments: Segment[] };
	/** A text header's segments; none for the other kinds. `placeholders`: 'text left out' for a text header whose Header Text was not given (a value or none is taken then). */
	header?: { kind: TemplateHeaderKind; placeholders: number | 'text left out'; segments: Segment[] };
	buttons?: Array<{ kind: TemplateButtonKind; label?: string }>;
	/** Refuse body values with what the platform refuses in template parameters. */
	checkCharacters: boolean;
}

/** A template text cut at its placeholders: literal text, or the number of the value that goes there. */
export type Segment = string | number;

/** The header kinds that take a media URL: the header's parameter is named after its kind. */
export const MEDIA_HEADER_KINDS = ['image', 'video', 'document'] as const;
export type MediaHeaderKind = (typeof MEDIA_HEADER_KINDS)[number];
export const TEMPLATE_HEADER_KINDS = ['none', 'text', ...MEDIA_HEADER_KINDS] as const;
export type TemplateHeaderKind = (typeof TEMPLATE_HEADER_KINDS)[number];

export const isMediaHeaderKind = (kind: unknown): kind is MediaHeaderKind => (MEDIA_HEADER_KINDS as readonly unknown[]).includes(kind);

/** The value a message gives a button: the editor's field (its name and display name), named in a sentence, and described. */
export interface ButtonValue {
	field: 'payload' | 'urlSuffix';
	displayName: string;
	inText: string;
	described: string;
}

/** Each button kind's name in the editor, in a sentence, and what value a message gives it, if any. */
export const TEMPLATE_BUTTON_KINDS: Record<'callPhone' | 'dynamicUrl' | 'quickReply' | 'staticUrl', { name: string; inText: string; value?: ButtonValue }> = {
	quickReply: { name: 'Quick Reply', inText: 'quick reply', value: { field: 'payload', displayName: 'Payload', inText: 'payload', described: 'its payload' } },
	dynamicUrl: { name: 'Dynamic URL', inText: 'dynamic URL', value: { field: 'urlSuffix', displayName: 'URL Suffix', inText: 'URL suffix', described: 'the text appended to its URL' } },
	staticUrl: { name: 'Static URL', inText: 'static URL' },
	callPhone: { name: 'Call Phone', inText: 'call phone' },
};
export type TemplateButtonKind = keyof typeof TEMPLATE_BUTTON_KINDS;

/** The kinds a message gives a value to, quick reply first. */
export const VALUE_BUTTON_KINDS = (Object.keys(TEMPLATE_BUTTON_KINDS) as TemplateButtonKind[]).filter((kind) => TEMPLATE_BUTTON_KINDS[kind].value !== undefined);

/** The kinds that take no value, which a message leaves out, as a sentence starts naming them. */
export const NO_VALUE_BUTTONS_IN_TEXT = (() => {
	const kinds = (Object.keys(TEMPLATE_BUTTON_KINDS) as TemplateButtonKind[]).filter((kind) => TEMPLATE_BUTTON_KINDS[kind].value === undefined);
	const text = buttonKindsInText(kinds, 'and');
	return `${capitalised(text)} buttons`;
})();

export const buttonValueOf = (kind: unknown): ButtonValue | undefined => TEMPLATE_BUTTON_KINDS[kind as TemplateButtonKind]?.value;

/** The kinds as a sentence names them: "quick reply, dynamic URL or call phone". */
export function buttonKindsInText(kinds: readonly TemplateButtonKind[], conjunction: 'and' | 'or'): string {
	const names = kinds.map((kind) => TEMPLATE_BUTTON_KINDS[kind].inText);
	return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} ${conjunction} ${names[names.length - 1]}`;
}

export interface PreparedMessage {
	request: SendRequestBody;
	/** The message its recipient gets, when the template is known. */
	preview?: string;
	/** Send Once: what makes this message the same as another (see request/messageKey.ts). */
	key?: string;
	/** The same in every try of Retry On Fail: recipient and template, never values computed at send time ({{ $now }}). */
	tryKey: string;
}

export interface InvalidMessage {
	invalid: NodeOperationError;
	/** As the editor names it, for the dry run's count by field. */
	field: string | undefined;
	/** The phone number and template code id as the item gave them (bounded), for its row. */
	identifiedBy: IDataObject;
}

export type ReadMessage = PreparedMessage | InvalidMessage;

export function isInvalid(message: ReadMessage): message is InvalidMessage {
	return 'invalid' in message;
}

export const CREDENTIAL_TYPE = 'templateMessageApi';
/** The credential's name in the editor, as messages name it. */
export const CREDENTIAL_DISPLAY_NAME = 'Template Message API';

/** Read once for the run, checked, never shown. */
export interface SendCredentials {
	/** `{base_url}/api/v2/push/message`. */
	url: string;
	token: string;
	/** Handed to n8n's helper so that it does not decrypt the credential again for every message. */
	decrypted: ICredentialsDecrypted;
}

/**
 * One attempt to send, from what the server or the socket told us. rejected: certainly not taken (refused, or
 * never reached the server); unknown: may have been taken (a timeout or reset after the request was written,
 * a gateway error, an unreadable 2xx), so sending again could message the recipient twice.
 */
export type Outcome =
	| { kind: 'accepted'; msgid: string; statusCode: number }
	| {
			kind: 'rejected';
			reason: string;
			statusCode?: number;
			/** Node's network error code (ECONNREFUSED, …) when no HTTP status came back. */
			errorCode?: string;
			/** The API's own error code (`errors[0].code`). */
			apiCode?: number | string;
			body?: unknown;
			/** The server or the network said "not now" rather than "no": worth trying again. */
			transient: boolean;
			retryAfterMs?: number;
			/** The server answered with a redirect, which the node does not follow. */
			redirect?: boolean;
	  }
	| {
			kind: 'unknown';
			reason: string;
			statusCode?: number;
			errorCode?: string;
			apiCode?: number | string;
			body?: unknown;
			/** The msgid the answer named without saying it took the message: a status lookup can settle it. */
			msgid?: string;
	  };

export type FailedOutcome = Exclude<Outcome, { kind: 'accepted' }>;
export type RejectedOutcome = Extract<Outcome, { kind: 'rejected' }>;
export type UnknownOutcome = Extract<Outcome, { kind: 'unknown' }>;

/** How far a refusal reaches: this item only, every item with its template, or every item. */
export type RefusalScope = 'item' | 'template' | 'account';

/** The refusal that stopped further messages, which the items not sent point to. */
export interface Refusal {
	/** 'throttled': this item only, after the API asked it to wait longer than the run waits. */
	scope: RefusalScope | 'server' | 'throttled';
	itemIndex: number;
	templateCodeId: string;
	reason: string;
	statusCode?: number;
	apiCode?: number | string;
}

/** Given up after the API asked it to wait longer than the run waits: a failure, as a refusal is. */
export function givenUpThrottled(heldBy: Refusal): boolean {
	return heldBy.scope === 'throttled';
}

/** The `status` column of a real run's rows (a dry run's say `dryRun`). */
export type ItemStatus = 'sent' | 'failed' | 'unknown' | 'notSent' | 'skipped' | 'inDoubt' | 'invalid';

/** Whether a row of each status carries its error (and goes to n8n's error output when On Error says so). */
export const FAILED_STATUS: Record<ItemStatus, boolean> = { sent: false, failed: true, unknown: true, notSent: true, skipped: false, inDoubt: false, invalid: true };

/**
 * Whether a row of each status has no msgid of its own, so that a msgid beside it (a sheet's cell kept from an
 * earlier send) is another message's. A skipped row's may be that of the row that sent it.
 */
export const WITHOUT_OWN_MSGID: Record<ItemStatus, boolean> = { sent: false, failed: true, unknown: false, notSent: true, skipped: false, inDoubt: true, invalid: true };

/** Whether a row saying this status (or 0.1.0's delivery) failed. */
export function isFailedStatus(status: unknown): boolean {
	return typeof status === 'string' && Object.hasOwn(FAILED_STATUS, status) && FAILED_STATUS[status as ItemStatus];
}

/**
 * What became of one input item, decided once where it happened, each kind with what goes with it. Code that
 * reads a result switches on `kind` (see `output/rows.ts`, `output/errors.ts`), so the compiler names every
 * place a new kind must reach. `sentInEarlierTry`: the answer an earlier try (Retry On Fail) of this node in
 * the same execution got; nothing was sent now.
 */
export type ItemResult =
	| { kind: 'sent'; msgid: string; attempts: number; sentInEarlierTry: boolean }
	/** The API or the network said it was not sent. */
	| { kind: 'refused'; outcome: RejectedOutcome; attempts: number; sentInEarlierTry: boolean }
	/** The API may have taken it (a timeout after the request went out, a 502): see Outcome. */
	| { kind: 'deliveryUnknown'; outcome: UnknownOutcome; attempts: number; sentInEarlierTry: boolean }
	/** A fault of the node's own while handling the item, after the request may have left. */
	| { kind: 'fault'; fault: string }
	/** Held back by an earlier refusal, or given up while throttled: surely not sent. */
	| { kind: 'heldBack'; heldBy: Refusal; attempts: number }
	/**
	 * Send Once could not record the message in n8n's database: not sent. `storeFailed`: the store's calls
	 * failed (the run stops, as at any failure); `overwritten`: other executions' writes replaced the record
	 * at every lookup (the rest of the run goes on).
	 */
	| { kind: 'notRecorded'; cause: 'storeFailed' | 'overwritten'; reason: string }
	/** Repeats an earlier item of the run (Skip Duplicate Messages). */
	| { kind: 'duplicate'; duplicate: Skip }
	/** Send Once: recorded by an earlier execution, or by another one at the same moment. */
	| { kind: 'sentBefore'; by: 'earlier' | 'concurrent' }
	/** Send Once: recorded by an earlier execution that never learnt whether the API took it: not sent. */
	| { kind: 'inDoubt' }
	| { kind: 'invalid'; invalid: InvalidMessage };

export type ItemResultKind = ItemResult['kind'];

/** The `status` column each kind of result comes out with: the one place it is decided. */
const STATUS_OF_KIND: Record<ItemResultKind, ItemStatus> = {
	sent: 'sent',
	refused: 'failed',
	deliveryUnknown: 'unknown',
	fault: 'unknown',
	heldBack: 'notSent',
	notRecorded: 'notSent',
	duplicate: 'skipped',
	sentBefore: 'skipped',
	inDoubt: 'inDoubt',
	invalid: 'invalid',
};

export function statusOf(result: ItemResult): ItemStatus {
	return STATUS_OF_KIND[result.kind];
}

/** For the `default` of a switch over every kind: a kind left out fails typecheck there. */
export function unreachable(value: never): never {
	throw new Error(`Unhandled kind: ${JSON.stringify(value)}`);
}

export type SendResult = Exclude<ItemResult, { kind: 'invalid' } | { kind: 'duplicate' }>;

/**
 * Whether a send's result is a failure of the node: without Continue On Fail the rest is not sent, and the
 * node fails (n8n's error workflow hears of it). A fault is one too; sendAll knows it as a throw.
 */
export function failsTheNode(result: SendResult): boolean {
	switch (result.kind) {
		case 'refused':
		case 'deliveryUnknown':
		case 'fault':
			return true;
		case 'heldBack':
			return givenUpThrottled(result.heldBy);
		case 'notRecorded':
			return result.cause === 'storeFailed';
		case 'sent':
		case 'sentBefore':
		case 'inDoubt':
			return false;
		default:
			return unreachable(result);
	}
}

/**
 * A 429 the pace's own timing explains, which delayed only its own request: at the edge of the API's
 * window this pace filled alone, or of the account's window it filled to its share while other senders
 * on the account used the rest.
 */
export type WindowEdge = 'atWindowEdge' | 'atSharedWindowEdge';

/**
 * How the API's rate limit held a run up: its "too many requests" answers (429 or code 9), of those the
 * ones at each kind of window edge, and the time every sender was paused.
 */
export type Throttling = { answers: number; waitedMs: number } & Record<WindowEdge, number>;

export interface SendRun {
	/** Undefined where no message was given, or the run stopped before this one. */
	results: Array<SendResult | undefined>;
	throttled?: Throttling;
	/** Without Continue On Fail: the first item whose failure stopped the run. */
	stoppedAt?: number;
	/** The refusals that stopped further messages (all of them, or one template's). */
	stops: Refusal[];
}

/** An item not sent because it repeats an earlier one of the run. */
export interface Skip {
	reason: string;
	duplicateOf: number;
}

/** What makes two messages "the same message" for Send Once (Options: see description/sendOnce.ts). */
export type SendOnce = 'off' | 'recipientTemplate' | 'recipientTemplateValues' | 'customKey';

export const MESSAGE_KEY_FIELD = 'Message Key';

/** A row routed to the error output carries messageKey under details (n8n routes only rows of error and details). */
// `details` first: on the error output n8n lays the input item under the row, and an input that was another
// sending node's row brings its messageKey to the top; `details` is the node's own (see rowsOf).
export const FORGET_KEY_DEFAULT = '={{ $json.details?.messageKey ?? $json.messageKey }}';
/** Get Status's Message ID, the same way: a row of unknown delivery keeps a msgid the answer named (see rows.ts). */
export const MESSAGE_ID_DEFAULT = '={{ $json.details?.msgid ?? $json.msgid }}';

/** When a message is tried again (see options.ts: maxThrottleWait in milliseconds). */
export type RetryPolicy = Pick<RunOptionValues, 'maxAttempts' | 'maxThrottleWait' | 'maxOutageWait' | 'retryUnknownDelivery'>;

/** Send's options for the whole run (see options.ts), and which Send Once it uses. */
export type RunOptions = RunOptionValues & { sendOnce: SendOnce };
