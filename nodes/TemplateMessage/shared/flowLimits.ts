// The numbers flow/breaker.ts and flow/pacer.ts work by, here so that the options' descriptions
// (shared/options.ts, which may not import from send/) state them from the same place.

/** Consecutive failures on the API's side (5xx, no connection, no answer) after which sending pauses. */
export const BREAKER_THRESHOLD = 5;

/** The first pause after the API started failing; each failed probe multiplies it by COOL_DOWN_GROWTH, up to the last. */
export const FIRST_COOL_DOWN_MS = 1000;
export const COOL_DOWN_GROWTH = 2;
export const LAST_COOL_DOWN_MS = 30_000;

/**
 * The window the provider's limit counts in: its documented limit is per second. An X-RateLimit-Reset
 * given as a delay waits no longer (api/outcome.ts): in whole seconds (`1`) or in milliseconds read as
 * seconds (`962`) it comes to one window at most, and a 429 corrects a reading too short. A Reset as a
 * moment (Unix time), the IETF draft's delta-seconds and Retry-After say their unit and are kept.
 */
export const RATE_LIMIT_WINDOW_MS = 1000;

/**
 * Room past one second between arrivals a limit apart, as the pacer's record knows them (each
 * request's lateness learned from its answer): for the two clocks' whole milliseconds and the record's
 * small error. A 429 at a window's edge widens it.
 */
export const ARRIVAL_ROOM_MS = 4;
