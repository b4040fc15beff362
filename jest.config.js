/** @type {import('jest').Config} */
const shared = {
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	// `npm run lint:package` unpacks the tarball there; its package.json would shadow this one.
	modulePathIgnorePatterns: ['<rootDir>/.scan/'],
};

module.exports = {
	testTimeout: 30_000,
	projects: [
		// The package: pure parts, and the node in n8n-core's engine against local servers.
		{ ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/*.test.ts'], setupFiles: ['<rootDir>/test/helpers/quietLogs.ts'] },
		// The real n8n application (n8n-app/) with the package installed as a community package.
		{ ...shared, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/*.e2e.test.ts'] },
	],
};
