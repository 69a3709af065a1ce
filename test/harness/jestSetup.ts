/**
 * Jest's global setup (jest.config.js): one temporary folder for the run, under which each test file makes its n8n
 * user folder (test/harness/index.ts); jestTeardown.ts removes it whole when the run ends, however its workers ended.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export default function setup(): void {
	process.env.MEDIAGEN_TEST_TEMP = mkdtempSync(path.join(tmpdir(), 'mediagen-jest-'));
}
