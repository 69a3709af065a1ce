/**
 * Where things are: the root of this checkout (suites run commands there and read examples/ from it) and the
 * git-ignored folder .e2e/<suite> that keeps a suite's logs after the run (CI keeps them as artifacts).
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.join(__dirname, '..', '..');

/** A folder under the repository (.e2e/<name>, git-ignored) for a suite's logs, emptied at the start of a run. */
export function logFolder(name: string): string {
	const folder = path.join(ROOT, '.e2e', name);
	rmSync(folder, { recursive: true, force: true });
	mkdirSync(folder, { recursive: true });
	return folder;
}
