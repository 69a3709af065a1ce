/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	testTimeout: 60_000,
	// One temporary folder for the run's n8n user folders (binary files of up to 1 GiB), removed when it ends.
	globalSetup: '<rootDir>/test/harness/jestSetup.ts',
	globalTeardown: '<rootDir>/test/harness/jestTeardown.ts',
	// Each test file starts its own simulator; two workers suit the 2-core machines.
	maxWorkers: 2,
};
