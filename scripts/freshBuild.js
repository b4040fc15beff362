'use strict';
/**
 * The one rule for when dist/ is stale: there is no dist/ or no build stamp, or a source of the
 * build (nodes/, credentials/, icons/, package.json, the tsconfigs, gulpfile.js) changed after the
 * last build began. Jest runs it before the projects that load the built package (`unit` and the
 * older engines: globalSetup in jest.config.js), so a bare `npx jest` after an edit tests the edit;
 * it builds quietly there, printing the build's output only when the build fails.
 * `node scripts/freshBuild.js` builds when stale, `--force` always (scripts/test.sh), with the output.
 */
const { spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const STAMP = path.join(ROOT, 'node_modules', '.cache', 'template-message-build');
const SOURCES = ['nodes', 'credentials', 'icons', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'gulpfile.js'];

/** The latest change under `entry` (a folder's own time too: a file deleted or renamed changes it). */
function lastChange(entry) {
	const full = path.join(ROOT, entry);
	if (!existsSync(full)) return 0;
	const stat = statSync(full);
	if (!stat.isDirectory()) return stat.mtimeMs;
	return readdirSync(full, { recursive: true }).reduce((latest, name) => Math.max(latest, statSync(path.join(full, String(name))).mtimeMs), stat.mtimeMs);
}

function isStale() {
	if (!existsSync(STAMP) || !existsSync(path.join(ROOT, 'dist'))) return true;
	const built = statSync(STAMP).mtimeMs;
	return SOURCES.some((entry) => lastChange(entry) > built);
}

function build({ quiet }) {
	// The stamp takes the time the build began: a source saved while it ran makes the next run build again.
	const began = new Date();
	const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', stdio: quiet ? 'pipe' : 'inherit' });
	if (result.status !== 0) {
		if (quiet) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
		throw new Error(`npm run build failed (${result.error?.message ?? `exit code ${result.status}`})`);
	}
	mkdirSync(path.dirname(STAMP), { recursive: true });
	writeFileSync(STAMP, '');
	utimesSync(STAMP, began, began);
}

/** Jest's globalSetup. */
module.exports = async function freshBuild() {
	if (isStale()) build({ quiet: true });
};

if (require.main === module) {
	if (process.argv.includes('--force') || isStale()) build({ quiet: false });
}
