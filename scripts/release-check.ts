/**
 * `npm run release:check`: run by .github/workflows/publish.yml before publishing. The pushed tag
 * (GITHUB_REF_NAME, or the first argument) must equal package.json's version, and CHANGELOG.md must have a
 * section for that version, so that what npm shows and what the changelog says cannot drift apart.
 * Without a tag it checks the current version's section only.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
const tag = process.argv[2] ?? (process.env.GITHUB_REF_TYPE === 'tag' ? process.env.GITHUB_REF_NAME : undefined);
const changelog = readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8');
const problems: string[] = [];

if (tag !== undefined && tag.replace(/^v/, '') !== version)
	problems.push(`tag ${tag} does not match package.json version ${version}`);
if (!new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\]`, 'm').test(changelog))
	problems.push(`CHANGELOG.md has no "## [${version}]" section`);

if (problems.length) {
	console.error(`release:check FAILED: ${problems.join('; ')}`);
	process.exit(1);
}
console.log(`release:check: version ${version}${tag ? `, tag ${tag}` : ''}, CHANGELOG section present`);
