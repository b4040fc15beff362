import { AccountShare } from '../../nodes/TemplateMessage/flow/accountShare';

/** This pace's requests in the window, known exactly. */
const exactly = (own: number) => ({ likely: own, most: own });

describe('AccountShare', () => {
	test('alone (the API counts only this pace\'s requests): not sharing, and a step takes all the room shown', () => {
		const share = new AccountShare();
		share.observe(25, 15, exactly(10));
		share.observe(25, 14, exactly(11));
		expect(share.sharing).toBe(false);
		expect(share.step()).toBe(14);
	});

	test('others\' use is taken at once when it rises, slowly when it falls; the share is a whole number of what they leave', () => {
		const share = new AccountShare();
		share.observe(25, 0, exactly(12));
		expect([share.sharing, share.share]).toEqual([true, 12]);
		// The peer stopped: the API counts only this pace's 12; the estimate of 13 others falls by 15% an answer.
		share.observe(25, 13, exactly(12));
		expect(share.share).toBe(14);
		for (let i = 0; i < 20; i++) share.observe(25, 13, exactly(12));
		expect(share.sharing).toBe(false);
	});

	test('a rise is taken at once only as far as the answer proves it; a fall goes slowly toward the likely count', () => {
		const share = new AccountShare();
		// Remaining 0: the likely count of this pace's own says 15 others, the most it may have had 12 others.
		share.observe(25, 0, { likely: 10, most: 13 });
		expect(share.share).toBe(13);
		share.observe(25, 0, { likely: 8, most: 12 });
		expect(share.share).toBe(12);
		// Known exactly, others use 11: the estimate of 13 falls by 15% of the gap an answer.
		share.observe(25, 0, exactly(14));
		expect(share.share).toBe(12);
		for (let i = 0; i < 11; i++) share.observe(25, 0, exactly(14));
		expect(share.share).toBe(13);
		share.observe(25, 0, exactly(14));
		expect(share.share).toBe(14);
	});

	test('while sharing, a step is half the least room every answer since the restart showed, none below 3, one without headers', () => {
		const share = new AccountShare();
		share.observe(25, 9, exactly(8));
		share.observe(25, 7, exactly(8));
		expect(share.step()).toBe(3);
		share.restart();
		expect(share.headersSinceRestart).toBe(false);
		expect(share.step()).toBe(1);
		share.observe(25, 2, exactly(8));
		expect(share.step()).toBe(0);
	});

	test('a 429 while sharing lowers the share to the pace it left', () => {
		const share = new AccountShare();
		share.observe(25, 0, exactly(10));
		expect(share.share).toBe(10);
		share.lowerTo(9);
		expect(share.share).toBe(9);
	});
});
