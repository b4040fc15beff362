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

	test('requests that left in the same millisecond are counted in the order they left; refused ones only when asked', () => {
		const record = new ArrivalRecord();
		const [a, b, c] = [record.depart(100), record.depart(100), record.depart(100)];
		expect([record.arrivalsBefore(a), record.arrivalsBefore(b), record.arrivalsBefore(c)]).toEqual([1, 2, 3]);
		b.refused = true;
		expect(record.arrivalsBefore(c, true)).toBe(2);
		expect(record.arrivalsBefore(c)).toBe(3);
	});

	test('each 429 at the edge widens the room by 2 ms, up to 50', () => {
		const record = new ArrivalRecord();
		record.widenRoom();
		expect(record.roomMs).toBe(ARRIVAL_ROOM_MS + 2);
		for (let i = 0; i < 100; i++) record.widenRoom();
		expect(record.roomMs).toBe(ARRIVAL_ROOM_MS + 50);
	});
});
