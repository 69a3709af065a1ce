/** Jest's global teardown (jest.config.js): removes the run's temporary folder (jestSetup.ts) and all made in it. */
import { rmSync } from 'node:fs';

export default function teardown(): void {
	const folder = process.env.MEDIAGEN_TEST_TEMP;
	if (folder) rmSync(folder, { recursive: true, force: true });
}
