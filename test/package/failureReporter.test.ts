/**
 * scripts/failureReporter.js, as scripts/test.sh uses it: a real jest run with a failing test, a
 * failing afterAll and a suite that cannot load leaves each, with its reason, for the end of the log.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { PACKAGE_ROOT } from '../helpers/engine';

let dir: string;
beforeAll(() => {
	dir = mkdtempSync(path.join(os.tmpdir(), 'tm-failures-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a red jest run writes each failed test, suite and afterAll, named, with the first lines of its error', () => {
	const tests = path.join(dir, 'suites');
	const failures = path.join(dir, 'failures');
	mkdirSync(tests);
	writeFileSync(path.join(tests, 'red.test.js'), "describe('a group', () => { test('passes', () => expect(1).toBe(1)); test('fails on purpose', () => expect(1 + 1).toBe(3)); });\n");
	writeFileSync(path.join(tests, 'teardown.test.js'), "test('passes', () => {}); afterAll(() => { throw new Error('the doc differs'); });\n");
	writeFileSync(path.join(tests, 'broken.test.js'), "require('./no-such-module');\n");
	writeFileSync(path.join(tests, 'green.test.js'), "test('passes too', () => {});\n");
	const config = { rootDir: tests, testEnvironment: 'node', reporters: [path.join(PACKAGE_ROOT, 'scripts', 'failureReporter.js')] };
	const run = spawnSync(process.execPath, [path.join(PACKAGE_ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--config', JSON.stringify(config), '--runInBand'], {
		cwd: tests,
		env: { ...process.env, TEST_FAILURES_DIR: failures },
		encoding: 'utf8',
	});
	expect(run.status).toBe(1);
	const files = readdirSync(failures);
	expect(files).toHaveLength(1);
	const lines = readFileSync(path.join(failures, files[0]), 'utf8').trimEnd().split('\n');
	const named = lines.filter((line) => line.startsWith('✕ ')).sort();
	expect(named).toEqual(['✕ broken.test.js (outside its tests: loading it, or a beforeAll or afterAll)', '✕ red.test.js › a group fails on purpose', '✕ teardown.test.js (outside its tests: loading it, or a beforeAll or afterAll)'].sort());
	const after = (name: string) => lines.slice(lines.indexOf(name) + 1).join('\n');
	expect(after('✕ red.test.js › a group fails on purpose')).toMatch(/Expected: 3\n\s+Received: 2/);
	expect(after('✕ teardown.test.js (outside its tests: loading it, or a beforeAll or afterAll)')).toMatch(/the doc differs/);
	expect(after('✕ broken.test.js (outside its tests: loading it, or a beforeAll or afterAll)')).toMatch(/Cannot find module '\.\/no-such-module'/);
});
