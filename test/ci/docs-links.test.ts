/**
 * Every link of the project's Markdown (README.md, CONTRIBUTING.md, CHANGELOG.md, docs/*.md) leads somewhere: a
 * relative link names a file or folder of the repository, and an #anchor names a heading of its file, as GitHub
 * writes heading ids. npm shows the README on the package page and resolves its relative links only sometimes, so
 * the README links to the repository with absolute URLs (…/blob/main/… for files, …/tree/main/… for folders,
 * raw.githubusercontent.com for images); those are mapped back to the files here and checked the same way, so a
 * link that would break once this branch reaches main fails now.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
	homepage: string;
	repository: { url: string };
};

// The repository the published README points at: package.json names it twice, and both must agree.
const REPO = pkg.homepage.replace(/\/$/, '');
const [OWNER, NAME] = new URL(REPO).pathname.slice(1).split('/');
const BRANCH = 'main';
const RAW = `https://raw.githubusercontent.com/${OWNER}/${NAME}/${BRANCH}`;

const MARKDOWN = [
	'README.md',
	'CONTRIBUTING.md',
	'CHANGELOG.md',
	...readdirSync(path.join(root, 'docs'))
		.filter((name) => name.endsWith('.md'))
		.map((name) => `docs/${name}`),
];

/** The text with fenced code blocks blanked (kept as empty lines, so that line numbers stay right). */
function withoutFences(markdown: string): string {
	let fence: string | undefined;
	return markdown
		.split('\n')
		.map((line) => {
			const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
			if (fence === undefined && marker) {
				fence = marker;
				return '';
			}
			if (fence !== undefined) {
				if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
					fence = undefined;
				}
				return '';
			}
			return line;
		})
		.join('\n');
}

/** Inline code spans become a placeholder of the same shape: no link inside them counts, lines stay. */
function withoutCodeSpans(text: string): string {
	return text.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (span) => span.replace(/[^\n]/g, 'x'));
}

/** GitHub's heading id (github-slugger): the rendered text, lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
	const text = heading
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/<[^>]+>/g, '')
		.replace(/`/g, '');
	return text
		.toLowerCase()
		.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
		.replace(/ /g, '-');
}

/** Every anchor a file offers: its headings' ids (repeats numbered as GitHub does) and explicit HTML ids. */
function anchors(markdown: string): Set<string> {
	const found = new Set<string>();
	const seen = new Map<string, number>();
	for (const line of withoutFences(markdown).split('\n')) {
		const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
		if (heading !== undefined) {
			const base = slug(heading);
			const count = seen.get(base) ?? 0;
			seen.set(base, count + 1);
			found.add(count === 0 ? base : `${base}-${count}`);
		}
		for (const match of line.matchAll(/<[a-z]+\s[^>]*\b(?:id|name)="([^"]+)"/gi)) found.add(match[1]);
	}
	return found;
}

interface Link {
	target: string;
	line: number;
	image: boolean;
}

/** Inline links and images, reference definitions and HTML href/src, outside code. */
function links(markdown: string): Link[] {
	const text = withoutCodeSpans(withoutFences(markdown));
	const lineOf = (index: number) => text.slice(0, index).split('\n').length;
	const found: Link[] = [];
	const patterns: Array<[RegExp, boolean | undefined]> = [
		[/(!?)\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g, undefined],
		[/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm, false],
		[/<(a|img)\s[^>]*\b(?:href|src)="([^"]+)"/gi, undefined],
	];
	for (const [pattern, image] of patterns) {
		for (const match of text.matchAll(pattern)) {
			const target = match[match.length - 1];
			if (!target) continue;
			const isImage = image ?? (match[1] === '!' || match[1].toLowerCase() === 'img');
			found.push({ target, line: lineOf(match.index ?? 0), image: isImage });
		}
	}
	return found;
}

/** The repository file an absolute URL names, when it names one of this repository's files on main. */
function repositoryPath(url: string): { file: string; kind: 'blob' | 'tree' | 'raw' } | undefined {
	const page = new RegExp(`^${literal(REPO)}/(blob|tree)/${BRANCH}/([^?#]*)`).exec(url);
	if (page) return { file: decodeURIComponent(page[2]), kind: page[1] as 'blob' | 'tree' };
	const raw = new RegExp(`^${literal(RAW)}/([^?#]*)`).exec(url);
	if (raw) return { file: decodeURIComponent(raw[1]), kind: 'raw' };
	return undefined;
}

function literal(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function read(file: string): string {
	return readFileSync(path.join(root, file), 'utf8');
}

/** What is wrong with the links of one Markdown file (its path relative to the root, and its text). */
function problems(file: string, markdown: string): string[] {
	const found: string[] = [];
	const own = anchors(markdown);
	for (const { target, line, image } of links(markdown)) {
		const at = `${file}:${line}: ${target}`;
		const hash = target.indexOf('#');
		const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
		if (target.startsWith('#')) {
			if (!own.has(anchor!)) found.push(`${at}: no heading of ${file} has this anchor`);
			continue;
		}
		let linked: string;
		if (/^[a-z][a-z\d+.-]*:/i.test(target)) {
			const mapped = repositoryPath(target);
			if (!mapped) {
				if (target.startsWith(`${REPO}/`) && /\/(blob|tree|raw)\//.test(target)) {
					found.push(`${at}: links to the repository's files go to ${REPO}/blob/${BRANCH}/… or ${RAW}/…`);
				}
				continue;
			}
			linked = mapped.file;
			const full = path.join(root, linked);
			if (!existsSync(full)) {
				found.push(`${at}: ${linked} does not exist in the repository`);
				continue;
			}
			const directory = statSync(full).isDirectory();
			if (mapped.kind === 'tree' && !directory) found.push(`${at}: ${linked} is a file: use /blob/`);
			if (mapped.kind !== 'tree' && directory) found.push(`${at}: ${linked} is a folder: use /tree/`);
			if (image && mapped.kind !== 'raw') found.push(`${at}: an image must come from ${RAW}/…`);
		} else {
			const relative = decodeURIComponent(target.slice(0, hash === -1 ? undefined : hash).split('?')[0]);
			linked = path.relative(root, path.resolve(path.dirname(path.join(root, file)), relative));
			if (linked.startsWith('..') || !existsSync(path.join(root, linked))) {
				found.push(`${at}: ${linked} does not exist in the repository`);
				continue;
			}
		}
		if (anchor !== undefined) {
			if (!linked.endsWith('.md')) found.push(`${at}: an anchor into a file that is not Markdown`);
			else if (!anchors(read(linked)).has(anchor)) found.push(`${at}: no heading of ${linked} has this anchor`);
		}
	}
	return found;
}

describe('Markdown links', () => {
	test('package.json names one repository, on GitHub', () => {
		expect(REPO).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+$/);
		expect(pkg.repository.url).toBe(`git+${REPO}.git`);
	});

	test.each(MARKDOWN)('%s: every relative and repository link has its file and its anchor', (file) => {
		expect(problems(file, read(file))).toEqual([]);
	});

	test('README.md (also the npm page) links to the repository with absolute URLs only', () => {
		const relative = links(read('README.md')).filter(
			({ target }) => !target.startsWith('#') && !/^[a-z][a-z\d+.-]*:/i.test(target),
		);
		expect(relative).toEqual([]);
	});

	test('README.md links every reference page of docs/', () => {
		const linked = new Set(
			links(read('README.md'))
				.map(({ target }) => repositoryPath(target)?.file)
				.filter(Boolean),
		);
		for (const file of MARKDOWN.filter((name) => name.startsWith('docs/'))) expect(linked).toContain(file);
	});

	test('the check finds missing files, missing anchors and wrong repository links', () => {
		const broken = [
			'[a](docs/no-such-page.md)',
			'[b](#no-such-heading)',
			'[c](CONTRIBUTING.md#no-such-heading)',
			`[d](${REPO}/blob/${BRANCH}/docs/no-such-page.md)`,
			`[e](${REPO}/blob/${BRANCH}/README.md#no-such-heading)`,
			`![f](${REPO}/blob/${BRANCH}/docs/images/node-panel.png)`,
			`[g](${REPO}/tree/${BRANCH}/README.md)`,
			`[h](${REPO}/blob/some-branch/README.md)`,
			'## A heading',
			'[fine](#a-heading) [fine](CONTRIBUTING.md#set-up) `[in code](nowhere.md)`',
			'```',
			'[in a fence](nowhere.md)',
			'```',
		].join('\n');
		expect(problems('README.md', broken)).toEqual([
			'README.md:1: docs/no-such-page.md: docs/no-such-page.md does not exist in the repository',
			'README.md:2: #no-such-heading: no heading of README.md has this anchor',
			'README.md:3: CONTRIBUTING.md#no-such-heading: no heading of CONTRIBUTING.md has this anchor',
			`README.md:4: ${REPO}/blob/${BRANCH}/docs/no-such-page.md: docs/no-such-page.md does not exist in the repository`,
			`README.md:5: ${REPO}/blob/${BRANCH}/README.md#no-such-heading: no heading of README.md has this anchor`,
			`README.md:6: ${REPO}/blob/${BRANCH}/docs/images/node-panel.png: an image must come from ${RAW}/…`,
			`README.md:7: ${REPO}/tree/${BRANCH}/README.md: README.md is a file: use /blob/`,
			`README.md:8: ${REPO}/blob/some-branch/README.md: links to the repository's files go to ${REPO}/blob/${BRANCH}/… or ${RAW}/…`,
		]);
	});

	test('heading ids follow GitHub', () => {
		expect(slug('Try it offline: `npm run demo`')).toBe('try-it-offline-npm-run-demo');
		expect(slug('Errors: On Error, error outputs, Stop and Retry On Fail')).toBe(
			'errors-on-error-error-outputs-stop-and-retry-on-fail',
		);
		expect(slug('Queue mode (a main instance and workers)')).toBe('queue-mode-a-main-instance-and-workers');
		expect(slug("Errors and n8n's settings")).toBe('errors-and-n8ns-settings');
		expect(slug('On Error → Stop Workflow')).toBe('on-error--stop-workflow');
		expect(anchors('# A\n## A\n```\n# A\n```\n## A')).toEqual(new Set(['a', 'a-1', 'a-2']));
	});
});
