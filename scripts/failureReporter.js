'use strict';
/**
 * A jest reporter that writes each failed suite and test, with the first lines of its error, to a
 * file in $TEST_FAILURES_DIR (one file per jest run), so that scripts/test.sh can end a red run with
 * them: a CI log's tail then says what failed and why. Without that variable it does nothing.
 */
const fs = require('node:fs');
const path = require('node:path');

const ERROR_LINES = 4;
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** The first lines of an error that say something: jest's own header lines and blank lines are dropped. */
function firstLines(message) {
	return String(message ?? '')
		.replace(ANSI, '')
		.split('\n')
		.map((line) => line.trimEnd())
		.filter((line) => line.trim() !== '' && !/^\s*at /.test(line) && !/^\s*●/.test(line))
		.slice(0, ERROR_LINES);
}

/** One failed suite's or test's lines: its name, then its error indented. */
function describeFailure(name, message) {
	return [`✕ ${name}`, ...firstLines(message).map((line) => `    ${line.trim()}`)];
}

function failuresOf(results, rootDir) {
	const lines = [];
	for (const suite of results.testResults) {
		const file = path.relative(rootDir, suite.testFilePath);
		const project = suite.displayName?.name ? `[${suite.displayName.name}] ` : '';
		if (suite.testExecError) lines.push(...describeFailure(`${project}${file} (outside its tests: loading it, or a beforeAll or afterAll)`, suite.testExecError.message || suite.failureMessage));
		const failed = suite.testResults.filter((test) => test.status === 'failed');
		for (const test of failed) lines.push(...describeFailure(`${project}${file} › ${test.fullName}`, test.failureMessages.join('\n')));
		if (failed.length === 0 && !suite.testExecError && suite.failureMessage) lines.push(...describeFailure(`${project}${file}`, suite.failureMessage));
	}
	return lines;
}

class FailureReporter {
	constructor(globalConfig) {
		this.rootDir = globalConfig.rootDir;
	}

	onRunComplete(_contexts, results) {
		const dir = process.env.TEST_FAILURES_DIR;
		if (!dir) return;
		const lines = failuresOf(results, this.rootDir);
		if (lines.length === 0) return;
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(path.join(dir, `jest-${process.pid}.txt`), `${lines.join('\n')}\n`);
	}
}

module.exports = FailureReporter;
module.exports.failuresOf = failuresOf;
