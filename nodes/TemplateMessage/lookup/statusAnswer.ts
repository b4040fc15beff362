import { MAX_MSGID_LENGTH, MAX_REASON_LENGTH, truncate } from '../shared/bounded';
import type { HistoryEntry, StatusReading } from '../shared/status';
import { apiReason, isObject } from '../api/outcome';

/** The newest entries kept of a message's history; the rest are counted. */
export const MAX_HISTORY = 50;
/** A status word longer than this is cut: the provider's are a few letters. */
const MAX_STATUS_LENGTH = 40;
/** Entries looked at: past this, history is not read further (a 1 MB answer holds fewer than this). */
const MAX_ENTRIES_READ = 200_000;

/**
 * Statuses after which nothing changes: read is the last step of a delivered message; failed and
 * rejected are final failures. submitted and delivered can still move on (delivered to read), and a
 * word the provider does not document is not known to be final.
 */
const FINAL_STATUSES: ReadonlySet<string> = new Set(['read', 'failed', 'rejected']);

/** The documented statuses of a message that reached its recipient. */
const REACHED_STATUSES: ReadonlySet<string> = new Set(['delivered', 'read']);

function saysSuccess({ failureCode, failureReason }: StatusReading): boolean {
	return failureCode === 0 || /^\s*(success|ok)\s*$/i.test(failureReason ?? '');
}

export function isFinalStatus(status: string): boolean {
	return FINAL_STATUSES.has(status);
}

/** How far a message got: submitted (and any word the provider does not document), delivered, then a final status. */
function progress(status: string): number {
	return isFinalStatus(status) ? 2 : status === 'delivered' ? 1 : 0;
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
	readFailure(body.additional_info, reading, redact);

	const raw = body.history_status;
	if (raw === undefined || raw === null) {
		const said = apiReason(body);
		reading.problems.push(said ? `the API answered without a status history: ${truncate(redact(said), MAX_REASON_LENGTH)}` : 'the API answered without a status history (no history_status)');
		return reading;
	}
	if (!Array.isArray(raw)) {
		reading.problems.push(`the API's status history is not a list (history_status is ${typeof raw === 'object' ? 'an object' : `a ${typeof raw}`})`);
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
		return reading;
	}
	const latest = sorted[sorted.length - 1];
	reading.deliveryStatus = latest.status;
	reading.final = isFinalStatus(latest.status);
	reading.statusAt = latest.at;
	reading.deliveredAt = sorted.find((entry) => entry.status === 'delivered')?.at ?? null;
	reading.readAt = sorted.find((entry) => entry.status === 'read')?.at ?? null;
	// additional_info says why a message failed: beside a message that reached the recipient, or as `{code: 0, reason: "Success"}`,
	// it is no failure. Beside submitted it is kept: a failure may be on its way.
	if (REACHED_STATUSES.has(latest.status) || saysSuccess(reading)) {
		reading.failureCode = null;
		reading.failureReason = null;
	}
	reading.historyDropped = Math.max(0, raw.length - unreadableEntries - MAX_HISTORY);
	reading.history = sorted.slice(-MAX_HISTORY).map(({ status, at }): HistoryEntry => ({ status, at }));
	return reading;
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
		} else if (text.length <= 40 && /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(text)) {
			const hasTime = /[T ]\d{2}:/.test(text);
			const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(text);
			// Date.parse reads a date and time without a zone as local time: the provider's example is UTC.
			const iso = text.replace(' ', 'T').replace(/(\.\d{3})\d+/, '$1');
			ms = Date.parse(hasTime && !zoned ? `${iso}Z` : iso);
		}
	}
	if (ms === undefined || !Number.isFinite(ms) || ms < EARLIEST_MS || ms > LATEST_MS) return null;
	return Math.round(ms);
}

function readFailure(info: unknown, reading: StatusReading, redact: (text: string) => string): void {
	if (!isObject(info)) return;
	const { code, reason } = info;
	if (typeof code === 'number' && Number.isFinite(code)) reading.failureCode = code;
	else if (typeof code === 'string' && code.trim() !== '') reading.failureCode = /^\d{1,9}$/.test(code.trim()) ? Number(code.trim()) : truncate(redact(code.trim()), 40);
	if (typeof reason === 'string' && reason.trim() !== '') reading.failureReason = truncate(redact(reason.trim()), MAX_REASON_LENGTH);
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
