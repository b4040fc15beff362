/**
 * Every size the benchmark runs at, in one place: the full run that writes docs/benchmarks.md, and the
 * smoke run (`npm run bench -- --smoke`, BENCH_SMOKE=1) that CI runs so that a change which breaks any
 * part of the benchmark is red: every part, a few rows, one round, its report written under
 * .bench-build/ instead of the docs. Environment variables still scale the full run.
 */
import path from 'node:path';

import { PACKAGE_ROOT } from '../test/helpers/engine';

export const SMOKE = process.env.BENCH_SMOKE === '1';

const size = (variable: string, full: number, smoke: number): number => (SMOKE ? smoke : Number(process.env[variable] ?? full));

export const SCALE = {
	rounds: size('BENCH_ROUNDS', 5, 1),
	httpItems: size('BENCH_ITEMS', 2000, 50),
	sequentialItems: size('BENCH_SEQUENTIAL_ITEMS', 100, 10),
	/** The node at the provider's 25 a second, and n8n's HTTP Request node against the same limit. */
	pacedItems: size('BENCH_PACED_ITEMS', 1000, 50),
	httpRequestLimitedItems: size('BENCH_HTTP_LIMITED_ITEMS', 200, 20),
	slowPacedItems: size('BENCH_SLOW_ITEMS', 20, 4),
	sharedAccountItems: size('BENCH_SHARED_ITEMS', 200, 20),
	bigItems: size('BENCH_BIG_ITEMS', 100_000, 500),
	buildLoops: size('BENCH_BUILD_LOOPS', 100_000, 1000),
	statusItems: size('BENCH_STATUS_ITEMS', 1000, 30),
};

/** Where the report goes: the docs, or (smoke) beside the build, where nothing reads it but the run itself. */
export const REPORT_FILE = SMOKE ? path.join(PACKAGE_ROOT, '.bench-build', 'benchmarks.md') : path.join(PACKAGE_ROOT, 'docs', 'benchmarks.md');

/** A goal's verdict in the report: a smoke run's few rows say nothing of it. */
export function verdict(met: boolean, notMet = 'not met'): string {
	return SMOKE ? 'not judged in a smoke run' : met ? 'met' : notMet;
}
