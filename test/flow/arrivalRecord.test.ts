/** The pacer's record of when its requests may have reached the API. */
import { ArrivalRecord } from '../../nodes/TemplateMessage/flow/arrivalRecord';
import { ARRIVAL_ROOM_MS } from '../../nodes/TemplateMessage/shared/flowLimits';

describe('ArrivalRecord', () => {
	test('a slow first answer that came back first is late once a faster one comes: its arrival moves, and the slot with it', () => {
		const record = new ArrivalRecord();
		const first = record.depart(0);
		record.answered(first, 80);
		// As the only answer, it is the yardstick: no lateness yet.
		expect(record.slotFreesAt(500, 1)).toBe(1000 + ARRIVAL_ROOM_MS);
		record.answered(record.depart(1000 + ARRIVAL_ROOM_MS), 20);
		// Now 60 ms late against the fastest: with two a second, the third waits until a second and the room after it arrived.
		expect(record.slotFreesAt(1010, 2)).toBe(60 + 1000 + ARRIVAL_ROOM_MS);
	});

	test('an unanswered request is counted as late as most answered ones (the 9th tenth)', () => {
		const record = new ArrivalRecord();
		// One answer of 20 ms, nine of 50: most requests arrive 30 ms later than the fastest.
		for (let i = 0; i < 10; i++) record.answered(record.depart(i * 10), i === 0 ? 20 : 50);
		record.depart(200);
		expect(record.slotFreesAt(300, 1)).toBe(200 + 30 + 1000 + ARRIVAL_ROOM_MS);
	});

	test('requests that left in the same millisecond are counted in the order they left; refused ones are not what the API counted', () => {
		const record = new ArrivalRecord();
		const [a, b, c] = [record.depart(100), record.depart(100), record.depart(100)];
		expect([record.arrivalsBefore(a), record.arrivalsBefore(b), record.arrivalsBefore(c)]).toEqual([1, 2, 3]);
		b.refused = true;
		expect(record.countedInWindowOf(c)).toEqual({ likely: 2, most: 2 });
		expect(record.arrivalsBefore(c)).toBe(3);
	});

	test('an answer that came back late (a busy event loop): the most the API may have counted still has the requests at the window\'s start, and one that left after it', () => {
		const record = new ArrivalRecord();
		// The fastest answer takes 20 ms: the yardstick.
		record.answered(record.depart(0), 20);
		const early = record.depart(100);
		record.answered(early, 20);
		const slow = record.depart(1080);
		const after = record.depart(1085);
		record.answered(after, 100);
		record.answered(slow, 100);
		// The record puts the slow one's arrival at 1160, more than a second after the early one's 100,
		// and the one that left 5 ms after it at 1165.
		expect(record.countedInWindowOf(slow)).toEqual({ likely: 1, most: 3 });
	});

	test('each 429 at the edge widens the room by 2 ms, up to 50', () => {
		const record = new ArrivalRecord();
		record.widenRoom();
		expect(record.roomMs).toBe(ARRIVAL_ROOM_MS + 2);
		for (let i = 0; i < 100; i++) record.widenRoom();
		expect(record.roomMs).toBe(ARRIVAL_ROOM_MS + 50);
	});
});
