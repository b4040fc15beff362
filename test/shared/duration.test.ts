import { duration, secondsSetting } from '../../nodes/TemplateMessage/shared/duration';

test.each([
	[0, '0 s'],
	[450, '450 ms'],
	[999.6, '1 s'],
	[1540, '1.5 s'],
	[9_940, '9.9 s'],
	[9_960, '10 s'],
	[19_400, '19 s'],
	[59_400, '59 s'],
	[59_600, '1 min'],
	[90_000, '1.5 min'],
	[1_962_000, '33 min'],
	[3_570_000, '1 h'],
	[3_600_000, '1 h'],
	[5_700_000, '1 h 35 min'],
	[86_400_000, '24 h'],
	[Infinity, 'without end'],
])('a duration of %d ms reads %s', (ms, text) => {
	expect(duration(ms)).toBe(text);
});

test.each([
	[120_000, '120 s'],
	[1_500, '1.5 s'],
	[250, '250 ms'],
])('a setting of %d ms in seconds reads %s', (ms, text) => {
	expect(secondsSetting(ms)).toBe(text);
});
