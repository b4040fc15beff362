import { MAX_MSGID_LENGTH, MAX_REASON_LENGTH, truncate } from '../shared/bounded';
import type { HistoryEntry, StatusReading } from '../shared/status';
import { DOCUMENTED_STATUSES } from '../shared/status';
import { apiReason } from '../api/outcome';
import { isObject } from '../shared/jsonObject';

/** The newest entries kept of a message's history; the rest are counted. */
export const MAX_HISTORY = 50;
/** A status word longer than this is cut: the provider's are a few letters. */
const MAX_STATUS_LENGTH = 40;
/** Entries looked at: past this, history is not read further (a 1 MB answer holds fewer than this). */
const MAX_ENTRIES_READ = 200_000;

function saysSuccess({ failureCode, failureReason }: StatusReading): boolean {
	return failureCode === 0 || /^\s*(success|ok)\s*$/i.test(failureReason ?? '');
}

/** read, failed and rejected: nothing changes after them. submitted and delivered can move on, and a word the provider does not document is not known to be final. */
export function isFinalStatus(status: string): boolean {
	return DOCUMENTED_STATUSES.get(status)?.final === true;
}

/** How far a message got: submitted (and any word the provider does not document), delivered, then a final status. */
export function progress(status: string): number {
	return DOCUMENTED_STATUSES.get(status)?.progress ?? 0;
}

/**
 * Reads a status answer (`{msgid, phone_number, history_status: [{timestamp, status}], additional_info:
 * {code, reason}}`), whatever shape it really has: every text kept is `redact`ed (the token redacted)
 * before it is cut, nothing is kept unbounded, and what is odd is said in `problems`. Never throws.
 */
export function readStatusAnswer(body: unknown, redact: (text: string) => string): StatusReading {
	const reading: StatusReading = {
		deliveryStatus: null,
		final: null,
		statusAt: null,
		deliveredAt: null,
		readAt: null,
		failureCode: null,
		failureReason: null,
		history: [],
		historyDropped: 0,
		msgid: null,
		phoneNumber: null,
		problems: [],
	};
	if (!isObject(body)) {
		reading.problems.push(typeof body === 'string' && body.trim() !== '' ? 'the API answered with a body that is not JSON' : 'the API answered with no status (an empty or non-object body)');
		return reading;
	}
	reading.msgid = shortText(body.msgid, MAX_MSGID_LENGTH, redact);
	reading.phoneNumber = asSendWritesIt(shortText(body.phone_number, 40, redact));
	const failure = readFailure(body.additional_info, redact);
	reading.failureCode = failure.code;
	reading.failureReason = failure.reason;
	const saidOfFailure = () => {
		if (failure.unreadable) reading.problems.push(failure.unreadable);
	};

	const raw = body.history_status;
	if (raw === undefined || raw === null) {
		const said = apiReason(body);
		reading.problems.push(said ? `the API answered without a status history: ${truncate(redact(said), MAX_REASON_LENGTH)}` : 'the API answered without a status history (no history_status)');
		saidOfFailure();
		return reading;
	}
	if (!Array.isArray(raw)) {
		reading.problems.push(`the API's status history is not a list (history_status is ${typeof raw === 'object' ? 'an object' : `a ${typeof raw}`})`);
		saidOfFailure();
		return reading;
	}
	const { entries, unreadableEntries, unreadableTimes } = readEntries(raw, redact);
	if (raw.length > MAX_ENTRIES_READ) reading.problems.push(`the status history has ${raw.length} entries: only the first ${MAX_ENTRIES_READ} were read`);
	if (unreadableEntries > 0) reading.problems.push(`${unreadableEntries} history ${plural(unreadableEntries, 'entry has', 'entries have')} no status`);
	if (unreadableTimes > 0) {
		reading.problems.push(
			`${unreadableTimes} ${plural(unreadableTimes, 'timestamp', 'timestamps')} could not be read (ISO 8601 text, or Unix time in seconds or milliseconds, is expected): the history is kept in the API's order`,
		);
	}
	// Sorted by time when every time was read, else as the API lists it (oldest first). At equal times (whole seconds
	// make them common) by how far the message got (a final status cannot be followed), then in the API's order.
	const sorted =
		unreadableTimes === 0 ? entries.map((entry, index) => ({ entry, index })).sort((a, b) => a.entry.ms! - b.entry.ms! || progress(a.entry.status) - progress(b.entry.status) || a.index - b.index).map(({ entry }) => entry) : entries;
	if (sorted.length === 0) {
		if (unreadableEntries === 0) reading.problems.push('the status history is empty');
		saidOfFailure();
		return reading;
	}
	const { latest, wentBack } = furthest(sorted);
	if (wentBack) reading.problems.push(`the history goes back (${wentBack.to} after ${wentBack.from}): the status is the furthest it got`);
	reading.deliveryStatus = latest.status;
	reading.final = isFinalStatus(latest.status);
	reading.statusAt = latest.at;
	reading.deliveredAt = sorted.find((entry) => entry.status === 'delivered')?.at ?? null;
	reading.readAt = sorted.find((entry) => entry.status === 'read')?.at ?? null;
	// additional_info says why a message failed: beside a message that reached the recipient, or as `{code: 0, reason: "Success"}`
	// beside one that did not fail, it is no failure. Beside submitted it is kept: a failure may be on its way; beside
	// failed or rejected always, whatever its code.
	const documented = DOCUMENTED_STATUSES.get(latest.status);
	if (documented?.reached || (saysSuccess(reading) && !(documented?.final && !documented.reached))) {
		reading.failureCode = null;
		reading.failureReason = null;
	} else saidOfFailure();
	reading.historyDropped = Math.max(0, raw.length - unreadableEntries - MAX_HISTORY);
	reading.history = sorted.slice(-MAX_HISTORY).map(({ status, at }): HistoryEntry => ({ status, at }));
	return reading;
}

/**
 * The message's status: the newest entry, but a documented status never goes back. Receipts can come out of
 * order (delivered stamped after read), and a history whose times could not be read is in the API's order,
 * which may be newest first: no documented status below the furthest one seen is taken, and nothing but
 * another final status follows a final one. A word the provider does not document follows anything but a
 * final status. `wentBack`: the first documented status found below the furthest, to be said.
 */
function furthest(entries: Entry[]): { latest: Entry; wentBack?: { from: string; to: string } } {
	let latest = entries[0];
	let furthestSeen = entries[0];
	let wentBack: { from: string; to: string } | undefined;
	for (const entry of entries.slice(1)) {
		const documented = DOCUMENTED_STATUSES.has(entry.status);
		if ((isFinalStatus(latest.status) && !isFinalStatus(entry.status)) || (documented && progress(entry.status) < progress(furthestSeen.status))) {
			// Delivered after read is receipts out of order, not a history that contradicts itself.
			if (documented && !(DOCUMENTED_STATUSES.get(entry.status)?.reached && DOCUMENTED_STATUSES.get(furthestSeen.status)?.reached)) wentBack ??= { from: furthestSeen.status, to: entry.status };
			continue;
		}
		latest = entry;
		if (documented && progress(entry.status) >= progress(furthestSeen.status)) furthestSeen = entry;
	}
	return wentBack ? { latest, wentBack } : { latest };
}

interface Entry extends HistoryEntry {
	ms: number | null;
}

function readEntries(raw: unknown[], redact: (text: string) => string): { entries: Entry[]; unreadableEntries: number; unreadableTimes: number } {
	const entries: Entry[] = [];
	let unreadableEntries = 0;
	let unreadableTimes = 0;
	const count = Math.min(raw.length, MAX_ENTRIES_READ);
	for (let index = 0; index < count; index++) {
		const item = raw[index];
		const status = isObject(item) ? statusWord(item.status, redact) : null;
		if (status === null) {
			unreadableEntries++;
			continue;
		}
		const ms = timeOf((item as Record<string, unknown>).timestamp);
		if (ms === null) unreadableTimes++;
		entries.push({ status, ms, at: ms === null ? null : new Date(ms).toISOString() });
	}
	return { entries, unreadableEntries, unreadableTimes };
}

function statusWord(value: unknown, redact: (text: string) => string): string | null {
	if (typeof value !== 'string') return null;
	const word = truncate(redact(value).trim().toLowerCase(), MAX_STATUS_LENGTH);
	return word === '' ? null : word;
}

/** From 2001 to 2286: anything outside is not a message's time. */
const EARLIEST_MS = Date.UTC(2001, 0, 1);
const LATEST_MS = 9_999_999_999_999;
/** Below this a number is Unix time in seconds (up to the year 5138), above it in milliseconds. */
const SECONDS_BELOW = 1e11;

/**
 * A timestamp as ISO 8601 text (without a zone it is read as UTC, not as this machine's time), or as
 * Unix time in seconds or milliseconds, a number or its digits. Anything else is null.
 */
export function timeOf(value: unknown): number | null {
	let ms: number | undefined;
	if (typeof value === 'number' && Number.isFinite(value)) ms = value < SECONDS_BELOW ? value * 1000 : value;
	else if (typeof value === 'string') {
		const text = value.trim();
		if (/^\d{9,13}(\.\d+)?$/.test(text)) {
			const number = Number(text);
			ms = number < SECONDS_BELOW ? number * 1000 : number;
		} else if (text.length <= 40) ms = isoTime(text);
	}
	if (ms === undefined || !Number.isFinite(ms) || ms < EARLIEST_MS || ms > LATEST_MS) return null;
	return Math.round(ms);
}

/**
 * ISO 8601 in its extended form (`2024-03-01T03:22:58.073Z`, a space for the T, `+07`, `+0700` or ` +07:00`
 * as the zone, a decimal comma) or its basic one (`20240301T032258Z`). A date no calendar has (30 February)
 * is none. Without a zone, UTC: Date.parse would read it as this machine's time.
 */
function isoTime(text: string): number | undefined {
	const match =
		/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s?(Z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(text) ??
		/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})?(?:[.,](\d{1,9}))?(Z|[+-]\d{2}(?:\d{2})?)?$/i.exec(text);
	if (!match) return undefined;
	const [, year, month, day, hours = '00', minutes = '00', seconds = '00', fraction = '', zone = 'Z'] = match;
	const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
	if (date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day) || Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) return undefined;
	const offset = zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(3).replace(':', '') || '00'}`;
	return Date.parse(`${year}-${month}-${day}T${hours}:${minutes}:${seconds}.${(fraction + '000').slice(0, 3)}${offset}`);
}

/**
 * additional_info as documented, `{code, reason}`, or as the API may write it otherwise: a list of such
 * objects (the first is read), their JSON text, `message` or `description` for the reason, or the reason
 * as bare text. Nothing in it (null, [], {}, all its values null) is none; what cannot be read is said
 * (`unreadable`), beside a message that did not reach its recipient.
 */
function readFailure(raw: unknown, redact: (text: string) => string): { code: number | string | null; reason: string | null; unreadable?: string } {
	const none = { code: null, reason: null };
	let info: unknown = raw;
	if (typeof info === 'string') {
		const text = info.trim();
		if (text === '') return none;
		const parsed = text.length <= MAX_INFO_TEXT && /^[[{]/.test(text) ? parseJsonText(text) : undefined;
		if (parsed === undefined) return { code: null, reason: truncate(redact(text), MAX_REASON_LENGTH) };
		info = parsed;
	}
	if (Array.isArray(info)) info = info.length === 0 ? null : info.find(isObject);
	if (info === undefined || info === null || info === false || info === 0) return none;
	if (!isObject(info)) return { ...none, unreadable: 'its additional_info could not be read (neither {code, reason} nor a text)' };
	if (Object.values(info).every((value) => value === null || value === undefined || value === '')) return none;
	const { code } = info;
	const reason = [info.reason, info.message, info.description].find((value) => typeof value === 'string' && value.trim() !== '') as string | undefined;
	const failure = {
		code: typeof code === 'number' && Number.isFinite(code) ? code : typeof code === 'string' && code.trim() !== '' ? (/^\d{1,9}$/.test(code.trim()) ? Number(code.trim()) : truncate(redact(code.trim()), 40)) : null,
		reason: reason === undefined ? null : truncate(redact(reason.trim()), MAX_REASON_LENGTH),
	};
	return failure.code === null && failure.reason === null ? { ...failure, unreadable: 'its additional_info has neither a code nor a reason the node can read' } : failure;
}

/** additional_info as JSON text is read up to this long; a longer one is kept as text. */
const MAX_INFO_TEXT = 4096;

function parseJsonText(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

function shortText(value: unknown, max: number, redact: (text: string) => string): string | null {
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	if (typeof value !== 'string' || value.trim() === '') return null;
	return truncate(redact(value.trim()), max);
}

/**
 * The recipient in the form a Send puts out (`6281…`): the provider writes `+6281…`, and a sheet
 * matching the two operations' rows needs one form. Anything but a plain number is kept as the provider wrote it.
 */
function asSendWritesIt(phoneNumber: string | null): string | null {
	return phoneNumber !== null && /^\+?\d+$/.test(phoneNumber) ? phoneNumber.replace(/^\+/, '') : phoneNumber;
}

function plural(count: number, one: string, many: string): string {
	return count === 1 ? one : many;
}
