/**
 * The GitHub Actions workflows are parsed as YAML and checked for what they promise: CI on pull requests
 * and pushes to main; publishing on version tags with npm provenance (id-token: write); and every command
 * they run is one of the project's own npm scripts (or npm ci / test / publish), so CI runs what
 * CONTRIBUTING.md documents and nothing else.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { parse } from 'yaml';

const root = path.join(__dirname, '..', '..');
const scripts = (
	JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

interface Step {
	uses?: string;
	run?: string;
	with?: Record<string, unknown>;
}
interface Workflow {
	on: Record<string, unknown>;
	permissions?: Record<string, string>;
	jobs: Record<string, { permissions?: Record<string, string>; steps: Step[] }>;
}

function load(name: string): Workflow {
	return parse(readFileSync(path.join(root, '.github', 'workflows', name), 'utf8'), {
		strict: true,
		uniqueKeys: true,
	}) as Workflow;
}

const ALLOWED_ACTIONS = new Set(['actions/checkout', 'actions/setup-node', 'actions/cache']);

function checkCommands(workflow: Workflow, allowPublish: boolean): string[] {
	const commands: string[] = [];
	for (const job of Object.values(workflow.jobs)) {
		for (const step of job.steps) {
			if (step.uses) expect(ALLOWED_ACTIONS.has(step.uses.split('@')[0])).toBe(true);
			if (!step.run) continue;
			for (const line of step.run
				.split('\n')
				.map((text) => text.trim())
				.filter(Boolean)) {
				commands.push(line);
				const script = /^npm run ([\w:-]+)$/.exec(line)?.[1];
				if (script) {
					expect(scripts).toHaveProperty([script]);
					continue;
				}
				const allowed =
					/^npm ci( --no-audit --no-fund)?$/.test(line) ||
					line === 'npm test' ||
					(allowPublish && line === 'npm publish --provenance --access public');
				if (!allowed) throw new Error(`workflow runs a command that is not one of the project's scripts: ${line}`);
			}
		}
	}
	return commands;
}

describe('GitHub Actions workflows', () => {
	test('ci.yml: lint, build and test on pull requests and pushes to main, with project scripts only', () => {
		const workflow = load('ci.yml');
		expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push']);
		expect(workflow.on.push).toEqual({ branches: ['main'] });
		const commands = checkCommands(workflow, false);
		for (const command of ['npm run lint', 'npm run build', 'npm test']) expect(commands).toContain(command);
		expect(commands).not.toContainEqual(expect.stringContaining('publish'));
	});

	test('publish.yml: version tags only, provenance with id-token: write, checks before publishing', () => {
		const workflow = load('publish.yml');
		expect(Object.keys(workflow.on)).toEqual(['push']);
		expect(workflow.on.push).toEqual({ tags: ['*.*.*'] });
		const [job] = Object.values(workflow.jobs);
		expect(job.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
		const commands = checkCommands(workflow, true);
		const publishAt = commands.indexOf('npm publish --provenance --access public');
		expect(publishAt).toBeGreaterThan(-1);
		for (const before of ['npm run release:check', 'npm run lint', 'npm test', 'npm run build']) {
			expect(commands.indexOf(before)).toBeGreaterThan(-1);
			expect(commands.indexOf(before)).toBeLessThan(publishAt);
		}
	});

	test('release:check accepts the package version as tag and refuses another', () => {
		const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
		const check = (tag: string) =>
			execFileSync(
				process.execPath,
				['-r', 'ts-node/register/transpile-only', path.join(root, 'scripts', 'release-check.ts'), tag],
				{ cwd: root, encoding: 'utf8', stdio: 'pipe' },
			);
		expect(check(version)).toContain(`tag ${version}`);
		expect(() => check('99.0.0')).toThrow(/does not match/);
	});
});
