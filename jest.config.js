const { readdirSync } = require('node:fs');
const path = require('node:path');

/** @type {import('jest').Config} */
const shared = {
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	// `npm run lint:package` unpacks the tarball there; its package.json would shadow this one.
	modulePathIgnorePatterns: ['<rootDir>/.scan/', '<rootDir>/engines/'],
};

/**
 * One project per older n8n in engines/ (n8n-1.78, n8n-1.123): the engine suite again, with
 * n8n-core and n8n-workflow taken from that folder, for the tests, the engine and the package
 * alike, as n8n resolves an installed community package's n8n-workflow to its own.
 */
const engineProjects = readdirSync(path.join(__dirname, 'engines'), { withFileTypes: true })
	.filter((entry) => entry.isDirectory())
	.map(({ name }) => ({
		...shared,
		displayName: name,
		testMatch: ['<rootDir>/test/engine/*.engine.test.ts'],
		// The fuzz suite checks the payload rules, which do not depend on the n8n version. A community node
		// is an AI Agent's tool from n8n 1.79 (README): 1.78 refuses the tool's input itself.
		testPathIgnorePatterns: ['/fuzz\\.engine\\.test\\.ts$', ...(name === 'n8n-1.78' ? ['/aiTool(\\.agent)?\\.engine\\.test\\.ts$'] : [])],
		// The engine suite loads the built package: build it first when a source is newer (scripts/freshBuild.js).
		globalSetup: '<rootDir>/scripts/freshBuild.js',
		setupFiles: ['<rootDir>/test/helpers/quietLogs.ts'],
		moduleNameMapper: { '^(n8n-core|n8n-workflow)(/.*)?$': `<rootDir>/engines/${name}/node_modules/$1$2` },
	}));

module.exports = {
	testTimeout: 30_000,
	// scripts/failureReporter.js keeps each failed test for the end of scripts/test.sh's output.
	reporters: ['default', '<rootDir>/scripts/failureReporter.js'],
	projects: [
		// The package: pure parts, and the node in n8n-core's engine (2.x, the dev dependency) against local servers.
		{
			...shared,
			displayName: 'unit',
			testMatch: ['<rootDir>/test/**/*.test.ts'],
			// The real n8n suites have projects of their own.
			testPathIgnorePatterns: ['<rootDir>/test/e2e/', '<rootDir>/test/browser/'],
			// The engine, sandbox and package suites load the built package: build it first when a source
			// is newer than the last build (scripts/freshBuild.js), so a bare `npx jest` tests the edit.
			globalSetup: '<rootDir>/scripts/freshBuild.js',
			setupFiles: ['<rootDir>/test/helpers/quietLogs.ts'],
		},
		...engineProjects,
		// The real n8n application (n8n-app/) with the package installed as a community package.
		{ ...shared, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/n8n.e2e.test.ts'] },
		// The same in queue mode: PostgreSQL, Redis, a main process and two workers.
		{ ...shared, displayName: 'queue', testMatch: ['<rootDir>/test/e2e/queue.e2e.test.ts'] },
		// What a user sees: n8n's editor in headless Chromium, against the same real n8n.
		{ ...shared, displayName: 'browser', testMatch: ['<rootDir>/test/browser/*.browser.test.ts'] },
		// The same in the newest n8n 1.x (n8n-app-1.x/): `npm test -- --1x`.
		{ ...shared, displayName: 'e2e-1x', testMatch: ['<rootDir>/test/e2e/n8n1x.e2e.test.ts'] },
	],
};
