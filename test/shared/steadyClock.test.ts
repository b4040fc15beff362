/**
 * shared/steadyClock.ts: the pace, the breaker and every wait measure time on a clock that never steps, so
 * a wall clock stepped mid-run (an NTP correction of minutes) neither holds a campaign for minutes nor makes
 * a short outage look like an hour of one.
 */
import { accountPacer } from '../../nodes/TemplateMessage/flow/pacer';
import { Breaker } from '../../nodes/TemplateMessage/flow/breaker';
import { SYSTEM_CLOCK } from '../../nodes/TemplateMessage/flow/flowControl';
import { BREAKER_THRESHOLD } from '../../nodes/TemplateMessage/shared/flowLimits';
import { steadyNow } from '../../nodes/TemplateMessage/shared/steadyClock';

const FIVE_MINUTES = 5 * 60_000;

/** The wall clock as Date.now reads it, stepped by `wallStep` (set before anything reads the clock). */
const realNow = Date.now.bind(Date);
let wallStep = 0;
const stepWallClock = (ms: number) => (wallStep = ms);

beforeEach(() => {
	wallStep = 0;
	jest.spyOn(Date, 'now').mockImplementation(() => realNow() + wallStep);
});
afterEach(() => jest.restoreAllMocks());

test('does not follow the wall clock when it is stepped, and goes on with real time', () => {
	const before = steadyNow();
	stepWallClock(-FIVE_MINUTES);
	const after = steadyNow();
	expect(after).toBeGreaterThanOrEqual(before);
	// Bounded far below the step, not by how fast the machine runs the two lines.
	expect(after - before).toBeLessThan(FIVE_MINUTES / 10);
	expect(Number.isInteger(after)).toBe(true);
	expect(SYSTEM_CLOCK.now).toBe(steadyNow);
});

test("a run's pace goes on at its rate when the wall clock steps back minutes mid-run", () => {
	const pacer = accountPacer({ url: 'https://steady.example/', token: 'steady-clock-token' }, 25);
	for (let index = 0; index < 3; index++) pacer.reserve();
	stepWallClock(-FIVE_MINUTES);
	// Three slots taken 40 ms apart: the fourth is at most 120 ms away, not five minutes.
	expect(pacer.reserve()).toBeLessThanOrEqual(120);
});

test('an outage of a moment is not taken for one of an hour when the wall clock steps forward', () => {
	const breaker = new Breaker(10 * 60_000);
	for (let index = 0; index < BREAKER_THRESHOLD - 1; index++) expect(breaker.failed('503')).toBeUndefined();
	stepWallClock(60 * 60_000);
	expect(breaker.failed('503')).toBeUndefined();
});
