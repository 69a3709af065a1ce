/**
 * `npm run test:ui`: MediaGen in n8n 2.41.1's editor as a new user meets it, in Debian's Chromium driven by
 * puppeteer-core (CONTRIBUTING.md, "The editor suite", says what it checks). MEDIAGEN_UI_SLOWDOWN=<n> runs the page
 * n times slower (Chromium's CPU throttling), as on a busy machine: a wait that only holds on a fast one fails there.
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';

import type { ElementHandle, Page } from 'puppeteer-core';

import { TASK_TYPE_FROM_INPUT } from '../nodes/MediaGen/request/taskItem';
import { waitDefaults } from '../nodes/MediaGen/waiting/options';
import type { TaskType } from '../nodes/MediaGen/models/endpoints';
import { BETAV45, IMAGE_MODELS } from '../nodes/MediaGen/models/image';
import type { ModelSpec } from '../nodes/MediaGen/models/types';
import { VIDEO_MODELS } from '../nodes/MediaGen/models/video';
import { collectionEntries, description, operations, visibleParameters } from '../test/editor-labels';
import { ensureChromium, launchChromium } from './lib/browser';
import { ROOT } from './lib/paths';
import { runMain } from './lib/process';
import { check, log, since } from './lib/report';
import { OWNER } from './lib/rest';
import { simulatorRecord } from './lib/simulator';
import { runOnVersions, withN8n } from './lib/suite';
import { waitFor, type WaitOptions, WaitTimeout } from './lib/wait';

const VERSION = '2.41.1';
const OUTPUT = path.join(ROOT, 'test-output', 'ui');
/** What a new user would type: the node's name, a model, a model family. */
const SEARCH_TERMS = ['MediaGen', 'proimage', 'gamma'];
const NODE_NAME = description.displayName;
const MODELS: ModelSpec[] = [...IMAGE_MODELS, ...VIDEO_MODELS];
// Generous deadlines: scripts/lib/wait.ts says why.
const UI_TIMEOUT = 120_000;
const RUN_TIMEOUT = 300_000;
/** How long a panel may take to show a choice's fields; a panel that never does costs this much per panel. */
const PANEL_TIMEOUT = 60_000;

const mismatches: string[] = [];
/** Records a panel mismatch and goes on, so that one run reports every operation that is wrong. */
function expect(condition: unknown, message: string): void {
	if (!condition) {
		mismatches.push(message);
		log('ui', `MISMATCH ${message}`);
	}
}

function sameSet(actual: string[], expected: string[]): { missing: string[]; extra: string[] } {
	return {
		missing: expected.filter((entry) => !actual.includes(entry)),
		extra: actual.filter((entry) => !expected.includes(entry)),
	};
}

// Selectors are n8n's data-test-id attributes, as n8n's own end-to-end tests use them.
const testId = (id: string) => `[data-test-id="${id}"]`;
const PARAMETERS = testId('node-parameters');
const PARAMETER_ITEM = `${PARAMETERS} ${testId('parameter-item')}`;
const OUTPUT_PANEL = testId('output-panel');
const SEARCH_BAR = `input${testId('node-creator-search-bar')}`;
const NODE_ON_CANVAS = `${testId('canvas-node')}[data-node-name="${BETAV45.action}"]`;
const PLUS_HANDLE = `${testId('canvas-node-output-handle')}[data-node-name="${BETAV45.action}"] ${testId('canvas-handle-plus')}`;
const field = (parameter: string) => testId(`parameter-input-${parameter}`);

type Handle = ElementHandle<Element>;
type Wanted = { text?: string; last?: boolean };
/** What a probe run in the page found: the value awaited, or what it saw instead (for the timeout message). */
type Probe<T> = { value: T } | { seen: string; value?: never };

/**
 * Runs `probe` in the page until it returns `{ value }` and returns that value; on the deadline (`wait`, or
 * UI_TIMEOUT for `wait` that only describes), the error says what it last saw.
 */
async function pageValue<T, Params extends unknown[]>(
	page: Page,
	wait: string | WaitOptions,
	args: Params,
	probe: (...params: Params) => Probe<T>,
): Promise<T> {
	const run = probe as unknown as (...params: unknown[]) => Promise<Probe<T>>;
	const options = typeof wait === 'string' ? { deadline: UI_TIMEOUT, describe: wait } : wait;
	return await waitFor(async (see) => {
		const result = await page.evaluate(run, ...args);
		if (!('seen' in result)) return { found: result.value };
		see(result.seen);
		return undefined;
	}, options).then((result) => result.found);
}

/** In the page: what `element` looks for, or what the elements `selector` matches show instead. */
function findElement(selector: string, text: string | undefined, last: boolean): Element | string {
	// An SVG element (the canvas's plus handle) has no innerText.
	const firstLine = (found: HTMLElement) => (found.innerText ?? '').split('\n')[0].trim();
	const all = Array.from(document.querySelectorAll<HTMLInputElement>(selector));
	const shown = (last ? all.reverse() : all).filter(
		(candidate) => candidate.checkVisibility({ visibilityProperty: true }) && !candidate.disabled,
	);
	const found = shown.find((candidate) => text === undefined || firstLine(candidate) === text);
	const texts = shown.map((candidate) => JSON.stringify(firstLine(candidate).slice(0, 60)));
	return found ?? `${all.length} match, ${shown.length} visible and enabled: ${texts.join(', ')}`;
}

/**
 * The first visible, enabled element among `selector` (the last one with `last`), with `text` as its first line
 * when given; the deadline's error lists what matched instead.
 */
async function element(page: Page, selector: string, wanted: Wanted = {}, deadline = UI_TIMEOUT): Promise<Handle> {
	const { text, last = false } = wanted;
	const wait = { deadline, describe: `${selector}${text === undefined ? '' : ` showing "${text}"`} to be visible` };
	return await waitFor(async (see) => {
		const handle = await page.evaluateHandle(findElement, selector, text, last);
		const found = handle.asElement() as Handle | null;
		if (found) return found;
		see(String(await handle.jsonValue()));
		await handle.dispose();
		return undefined;
	}, wait);
}

/** Presses Escape and waits until the first element among `selector` is gone or hidden (the panel closed). */
async function closeWithEscape(page: Page, selector: string): Promise<void> {
	await page.keyboard.press('Escape');
	await pageValue(page, `${selector} to be hidden`, [selector], (sel) =>
		document.querySelector(sel)?.checkVisibility() ? { seen: 'still visible' } : { value: true },
	);
}

async function click(page: Page, selector: string, text?: string): Promise<void> {
	await (await element(page, selector, { text })).click();
}

/**
 * Replaces the text of an input or textarea the way a user types. The field is focused rather than clicked:
 * panels slide in, and a click during the slide can miss.
 */
async function typeInto(page: Page, selector: string, text: string): Promise<void> {
	const input = (await element(page, selector, { last: true })) as ElementHandle<HTMLInputElement>;
	await input.evaluate((found) => {
		found.focus();
		found.select();
	});
	await page.keyboard.press('Backspace');
	await page.keyboard.type(text);
}

const SETTLING = { deadline: UI_TIMEOUT, describe: 'the list entry to stop moving', interval: 50 };

/**
 * Clicks an entry of a dropdown list once the list has stopped moving: lists animate in and move when the
 * panel grows, and a click during that can land on a neighbouring entry.
 */
async function clickWhenSettled(handle: Handle): Promise<void> {
	await handle.scrollIntoView();
	let before = '';
	await waitFor(async (see) => {
		const now = JSON.stringify(await handle.boundingBox());
		const still = now === before;
		if (!still) see(`moving: ${before} → ${now}`);
		before = now;
		return still;
	}, SETTLING);
	await handle.click();
}

async function screenshot(page: Page, name: string): Promise<void> {
	const file = path.join(OUTPUT, `${name}.png`) as `${string}.png`;
	mkdirSync(path.dirname(file), { recursive: true });
	await page.screenshot({ path: file });
	log('ui', `screenshot ${path.relative(ROOT, file)}`);
}

/**
 * Types `term` into the nodes panel's search and returns the node names it lists once it lists the node. The
 * list filters as the user types, and "No results" can be an earlier term's answer for a moment: only the node
 * listed for the whole term ends the wait; the deadline's error quotes what the list showed last.
 */
async function searchNodes(page: Page, term: string): Promise<string[]> {
	await typeInto(page, SEARCH_BAR, term);
	const describe = `the nodes panel to list ${NODE_NAME} for "${term}"`;
	return await pageValue(page, describe, [term, NODE_NAME, SEARCH_BAR], (wanted, name, bar) => {
		const input = document.querySelector<HTMLInputElement>(bar);
		const names = Array.from(document.querySelectorAll<HTMLElement>('[data-test-id="node-creator-item-name"]')).map(
			(item) => item.innerText.trim(),
		);
		if (input?.value === wanted && names.includes(name)) return { value: names };
		const noResults = document.querySelector('[data-test-id="node-creator-no-results"]') ? ', "No results"' : '';
		return { seen: `search box "${input?.value ?? '(none)'}", listed [${names.join(', ')}]${noResults}` };
	});
}

async function searchFrom(page: Page, opener: string, where: string, shot: string): Promise<void> {
	await click(page, opener);
	for (const term of SEARCH_TERMS) {
		const names = await searchNodes(page, term);
		const listed = names.join(', ') || 'nothing, "No results"';
		check(names.includes(NODE_NAME), `searching "${term}" from ${where} lists ${NODE_NAME} (listed: ${listed})`);
		log('ui', `search "${term}" from ${where}: ${NODE_NAME} listed`);
	}
	await screenshot(page, shot);
}

type PanelState = Awaited<ReturnType<typeof panelState>>;

/**
 * Reads the panel: the labels of its top-level parameters (not the entries inside collections), and for each
 * collection, by label, the entries `offered` in its "Add …" list and those `set` (already added, so no longer
 * offered). Values set for one operation stay when the user switches to another that has the same collection.
 */
async function panelState(page: Page) {
	return await page.$$eval(PARAMETER_ITEM, (items) => {
		const state = { labels: [] as string[], collections: {} as Record<string, { offered: string[]; set: string[] }> };
		const all = (within: Element, selector: string) => Array.from(within.querySelectorAll<HTMLElement>(selector));
		for (const item of items as HTMLElement[]) {
			if (item.offsetParent === null || item.parentElement?.closest('[data-test-id="parameter-item"]')) continue;
			const own = (title: HTMLElement) =>
				title.closest('[data-test-id="parameter-item"]') === item && !title.closest('.multi-parameter .parameter-item');
			const titles = all(item, '[class*="title"]').filter(own);
			state.labels.push(...titles.map((title) => title.innerText.trim()));
			if (!item.querySelector('.multi-parameter')) continue;
			const add = item.querySelector('[data-test-id="collection-parameter-add"] input');
			const listId = add?.getAttribute('aria-controls');
			const list = listId ? document.getElementById(listId) : null;
			// A collection of one option has no list: n8n shows a button that adds it, labelled "Add <option>".
			const single = all(item, 'button')
				.map((button) => button.innerText.trim())
				.find((text) => text.startsWith('Add '));
			const options = list ? all(list, '[data-test-id="collection-parameter-option"]') : [];
			const added = all(item, '.multi-parameter [data-test-id="parameter-item"] [class*="title"]');
			state.collections[item.innerText.split('\n')[0].trim()] = {
				offered: list ? options.map((option) => option.textContent!.trim()) : single ? [single.slice(4)] : [],
				set: added.map((title) => title.innerText.trim()),
			};
		}
		return { ...state, labels: [...new Set(state.labels)].filter((label) => label && label !== 'Credential') };
	});
}

/**
 * One look at picking `entry` in the list the dropdown `trigger` opens, acting on what the page shows: a closed
 * list is opened; in an open one the entry, once shown, is clicked when it stops moving (a click while the list
 * animates in can miss; a list that closes meanwhile is opened again on the next look). Returns what it saw.
 */
async function pickStep(page: Page, trigger: Handle, entries: string, entry: string, state: string): Promise<string> {
	const listId = await trigger.$eval('input', (input) => input.getAttribute('aria-controls'));
	check(listId, 'the dropdown names the list it opens');
	const list = `[id="${listId}"]`;
	if (!(await page.$eval(list, (open) => (open as HTMLElement).offsetParent !== null).catch(() => false))) {
		await trigger.click();
		return `${state}, its list closed: opening it`;
	}
	return await element(page, `${list} ${entries}`, { text: entry }, 0)
		.then(async (handle) => await clickWhenSettled(handle))
		.then(() => `${state} after clicking "${entry}" in its open list`)
		.catch((error: Error) => `${state}; "${entry}" in its open list: ${error.message}`);
}

/** The value the input of parameter `name` shows, or undefined when the panel has no such parameter. */
async function inputValue(page: Page, name: string): Promise<string | undefined> {
	return await page.$eval(`${field(name)} input`, (input) => (input as HTMLInputElement).value).catch(() => undefined);
}

async function choose(page: Page, name: string, optionText: string): Promise<void> {
	const wait = { deadline: UI_TIMEOUT, describe: `${name} to show "${optionText}" after choosing it`, interval: 500 };
	await waitFor(async (see) => {
		const current = await inputValue(page, name);
		if (current === optionText) return true;
		if (current === undefined) see(`${name} is not in the panel`);
		else {
			const trigger = await element(page, field(name));
			see(await pickStep(page, trigger, '.el-select-dropdown__item', optionText, `${name} shows "${current}"`));
		}
		return false;
	}, wait);
}

/** Adds an entry of the collection labelled `label` and returns the value its input shows. */
async function addCollectionEntry(page: Page, label: string, entry: string, parameter: string): Promise<string> {
	const describe = `${label} to show "${entry}" with a value after adding it`;
	const wait = { deadline: UI_TIMEOUT, describe, interval: 500 };
	return await waitFor(async (see) => {
		// Added (also by a click that landed on a neighbouring entry and added this one): its value, once shown.
		const shown = await inputValue(page, parameter);
		if (shown) return shown;
		if (shown !== undefined) {
			see(`"${entry}" added, its input still empty`);
			return undefined;
		}
		const add = await (await element(page, PARAMETER_ITEM, { text: label })).$(testId('collection-parameter-add'));
		check(add, `the ${label} collection has an add list`);
		see(await pickStep(page, add, testId('collection-parameter-option'), entry, `"${entry}" not added`));
		return undefined;
	}, wait);
}

/**
 * Focuses and leaves a field, as a user skipping it does: whether n8n flags it as needing a value as `required`
 * says, once it does or when the deadline has passed.
 */
async function flaggedAsRequired(page: Page, parameter: string, required: boolean): Promise<boolean> {
	const input = `${field(parameter)} textarea, ${field(parameter)} input`;
	await click(page, input);
	await page.$eval(input, (clicked) => (clicked as HTMLInputElement).select());
	await page.keyboard.press('Backspace');
	await page.$eval(input, (left) => (left as HTMLElement).blur());
	const wait = { deadline: PANEL_TIMEOUT, describe: `${parameter} left empty to be ${required ? '' : 'not '}flagged` };
	const isFlagged = () => page.$eval(field(parameter), (shown) => shown.classList.contains('has-issues'));
	return await waitFor(async () => (await isFlagged().catch(() => false)) === required, wait).catch((error) => {
		if (error instanceof WaitTimeout) return false;
		throw error;
	});
}

/** The model spec's own fields, placed as the spec says: in the panel (main) or under Additional Fields. */
function specLabels(spec: ModelSpec): { main: string[]; additional: string[] } {
	const main = spec.fields.filter((entry) => entry.placement === 'main').map((entry) => entry.displayName);
	const additional = spec.fields.filter((entry) => entry.placement === 'additional').map((entry) => entry.displayName);
	if (spec.references?.urlField) main.push(spec.references.urlField.displayName);
	if (spec.references?.valueField) additional.push(spec.references.valueField.displayName);
	return { main, additional };
}

function panelProblems(state: PanelState, choices: Record<string, string>, where: string): string[] {
	const problems: string[] = [];
	const shown = visibleParameters(choices);
	const expectedLabels = shown.map((property) => property.displayName);
	const { missing, extra } = sameSet(state.labels, expectedLabels);
	if (missing.length || extra.length)
		problems.push(
			`${where}: panel fields ${JSON.stringify(state.labels)}; the description shows ${JSON.stringify(expectedLabels)} (missing ${missing.join(', ') || '-'}; unexpected ${extra.join(', ') || '-'})`,
		);
	for (const property of shown.filter((candidate) => ['additionalFields', 'options'].includes(candidate.name))) {
		const { offered, set } = state.collections[property.displayName] ?? { offered: [], set: [] };
		const expected = collectionEntries(choices, property.name).map((entry) => entry.displayName);
		const difference = sameSet([...offered, ...set], expected);
		if (difference.missing.length || difference.extra.length)
			problems.push(
				`${where}: ${property.displayName} offers ${JSON.stringify(offered)} (set: ${JSON.stringify(set)}); expected ${JSON.stringify(expected)}`,
			);
	}
	return problems;
}

/**
 * The panel once it shows what the description says for `choices`, or, when the deadline passes first, as it
 * was last seen. On a busy machine the panel has been read showing the previous choice's fields after the
 * dropdown showed the new one: a read at once can compare the wrong panel.
 */
async function settledPanel(page: Page, choices: Record<string, string>, where: string): Promise<PanelState> {
	const started = Date.now();
	let checks = 0;
	let last: PanelState | undefined;
	let problems: string[] = [];
	const describe = `${where}: the panel to show the description's fields`;
	const wait = { deadline: PANEL_TIMEOUT, describe, interval: 500 };
	const dropdowns = Object.keys(choices).map((name) => `${field(name)} input`);
	const settled = await waitFor(async (see) => {
		checks++;
		last = await panelState(page);
		problems = panelProblems(last, choices, where);
		// The dropdowns too: a panel that shows another choice's fields says which choice it shows.
		const shown = await page.$$eval(dropdowns.join(', '), (inputs) =>
			inputs.map((input) => `"${(input as HTMLInputElement).value}"`).join(', '),
		);
		see(`${problems.join('; ')} (the dropdowns show ${shown})`);
		return !problems.length;
	}, wait).catch((error) => {
		if (!(error instanceof WaitTimeout) || !last) throw error;
		log('ui', `${where}: the panel did not match within ${PANEL_TIMEOUT / 1000} s (${error.message})`);
		return false;
	});
	// How often, and how long, the panel lags behind a choice on this machine: worth seeing in the log.
	if (settled && checks > 1) log('ui', `${where}: the panel showed the choice's fields after ${since(started, 1)}`);
	for (const problem of problems) expect(false, problem);
	return last!;
}

const PLACES = { main: 'in the panel', additional: 'under Additional Fields' } as const;

/** Compares the panel of one resource/operation (and Task Type) with the specs and the description. */
async function checkOperation(page: Page, choices: Record<string, string>, where: string): Promise<void> {
	const { labels, collections } = await settledPanel(page, choices, where);
	const spec = MODELS.find((model) => model.operation === choices.operation);
	if (!spec) return;
	const { offered, set } = collections['Additional Fields'] ?? { offered: [], set: [] };
	const shown = { main: labels, additional: [...offered, ...set] };
	const own = specLabels(spec);
	const ownLabels = [...own.main, ...own.additional];
	for (const place of ['main', 'additional'] as const) {
		const is = PLACES[place];
		for (const label of own[place])
			expect(shown[place].includes(label), `${where}: the ${spec.operation} spec's field "${label}" is ${is}`);
		for (const other of MODELS.filter((model) => model !== spec))
			for (const label of specLabels(other)[place].filter((otherLabel) => !ownLabels.includes(otherLabel)))
				expect(!shown[place].includes(label), `${where}: "${label}" (a ${other.operation} field) is not ${is}`);
	}
	const prompt = spec.fields.find((entry) => entry.wire === 'prompt');
	if (!prompt) return;
	expect(await page.$(`${field('prompt')} textarea`), `${where}: Prompt is a multi-line input`);
	const required = !!prompt.required;
	const flagged = (await flaggedAsRequired(page, 'prompt', required)) ? required : !required;
	expect(
		flagged === required,
		`${where}: Prompt left empty is ${flagged ? '' : 'not '}flagged as needing a value; the spec says required: ${required}`,
	);
}

/** Task → Wait shows the waiting defaults of the chosen Task Type. */
async function checkWaitDefaults(page: Page, taskType: string, where: string): Promise<void> {
	const kinds: TaskType[] = taskType === TASK_TYPE_FROM_INPUT ? ['image', 'video'] : [taskType as TaskType];
	const defaults = waitDefaults(kinds);
	const options = collectionEntries({ resource: 'task', operation: 'wait', taskType }, 'options');
	const shown: string[] = [];
	for (const name of ['pollInterval', 'maxWait', 'requestTimeout'] as const) {
		const label = options.find((option) => option.name === name)!.displayName;
		const value = await addCollectionEntry(page, 'Options', label, name);
		expect(
			Number(value) === defaults[name],
			`${where}: ${name} shows ${value}, the default for ${kinds.join(' and ')} tasks is ${defaults[name]}`,
		);
		shown.push(`${label} ${value}`);
	}
	log('ui', `${where}: defaults ${shown.join(', ')}`);
}

type Option = { name: string; value: string };
const optionsOf = (name: string) =>
	description.properties.find((property) => property.name === name)!.options as Option[];

async function checkEveryOperation(page: Page): Promise<number> {
	const resourceNames = Object.fromEntries(optionsOf('resource').map((option) => [option.value, option.name]));
	const list = operations();
	const covered = MODELS.every((model) => list.some((entry) => entry.operation === model.operation));
	check(covered, 'every model spec is an operation of the node');
	let panels = 0;
	for (const { resource, operation, name } of list) {
		await choose(page, 'resource', resourceNames[resource]);
		await choose(page, 'operation', name);
		for (const taskType of resource === 'task' ? optionsOf('taskType') : [undefined]) {
			if (taskType) await choose(page, 'taskType', taskType.name);
			const choices = { resource, operation, ...(taskType && { taskType: taskType.value }) };
			const where = `${resourceNames[resource]} → ${name}${taskType ? ` (Task Type ${taskType.name})` : ''}`;
			await checkOperation(page, choices, where);
			if (taskType && operation === 'wait') await checkWaitDefaults(page, taskType.value, where);
			await screenshot(page, `operations/${Object.values(choices).join('-')}`);
			panels++;
		}
	}
	return panels;
}

async function loginInBrowser(page: Page, url: string): Promise<void> {
	await page.goto(`${url}/signin`, { waitUntil: 'domcontentloaded' });
	await typeInto(page, `${testId('emailOrLdapLoginId')} input`, OWNER.email);
	await typeInto(page, `${testId('password')} input`, OWNER.password);
	await click(page, testId('form-submit-button'));
	await pageValue(page, 'the sign-in to leave /signin', [], () =>
		location.pathname.startsWith('/signin') ? { seen: `at ${location.pathname}` } : { value: true },
	);
}

/** Once `pattern` matches the text of the output panel's `part`: that text, then the match's groups. */
async function outputText(page: Page, part: string, pattern: RegExp): Promise<string[]> {
	const describe = `${part} in the output panel to match ${pattern}`;
	return await pageValue(page, describe, [`${OUTPUT_PANEL} ${part}`, pattern.source], (selector, source) => {
		const text = document.querySelector<HTMLElement>(selector)?.innerText;
		const match = new RegExp(source).exec(text ?? '');
		return match ? { value: [text!, ...match.slice(1)] } : { seen: `it shows: ${(text ?? '(nothing)').slice(0, 300)}` };
	});
}

/** Runs the open node with "Execute step" and checks its output, as JSON and as an image. */
async function runInEditor(page: Page, simulatorUrl: string): Promise<void> {
	const started = Date.now();
	await click(page, testId('node-execute-button'));
	const ran = { deadline: RUN_TIMEOUT, describe: 'the output panel to show the run' };
	await pageValue(page, ran, [OUTPUT_PANEL], (selector) => {
		const done = `${selector} [data-test-id="node-run-status-success"], ${selector} [data-test-id="ndv-items-count"]`;
		if (document.querySelector(done)) return { value: true };
		const shown = document.querySelector<HTMLElement>(selector)?.innerText ?? '(no panel)';
		return { seen: `the output panel shows: ${shown.replace(/\s+/g, ' ').slice(0, 300)}` };
	});
	log('ui', `beta v4.5 creation ran in the editor in ${since(started, 1)}`);

	await click(page, `${OUTPUT_PANEL} ${testId('radio-button-json')}`);
	const [output, taskId] = await outputText(page, testId('ndv-data-container'), /"taskid":\s*"([^"]+)"/);
	check(/"status":\s*"completed"/.test(output), `the output JSON says status "completed": ${output.slice(0, 400)}`);
	check(output.includes(`"${simulatorUrl}/files/`), `the output JSON lists the result URL: ${output.slice(0, 400)}`);

	await click(page, `${OUTPUT_PANEL} ${testId('radio-button-binary')}`);
	const [, name] = await outputText(page, testId('ndv-binary-data_0'), /File Name:\s*(\S+)/);
	check(name.startsWith(taskId), `the file is named after the task (${name}, task ${taskId})`);
	await click(page, `${OUTPUT_PANEL} ${testId('ndv-view-binary-data')}`);
	const size = await pageValue(page, 'the output panel to show the image', [OUTPUT_PANEL], (selector) => {
		const img = Array.from(document.querySelectorAll<HTMLImageElement>(`${selector} img`)).find((candidate) =>
			candidate.src.includes('/rest/binary-data'),
		);
		if (img && img.complete && img.naturalWidth > 0) return { value: `${img.naturalWidth}x${img.naturalHeight}` };
		return { seen: img ? `the image ${img.complete ? 'loaded empty' : 'still loading'}` : 'no binary-data image' };
	});
	log('ui', `the output panel shows ${name} as a ${size} image`);
}

/** 2. Its actions list names every model; add beta v4.5 from it, as a user picks an operation, and run it. */
async function addAndRun(page: Page, simulatorUrl: string): Promise<void> {
	await searchNodes(page, NODE_NAME);
	await click(page, testId('node-creator-item-name'), NODE_NAME);
	const listed = `the actions list to show at least ${MODELS.length} actions`;
	const actions = await pageValue(page, listed, [MODELS.length], (count) => {
		const texts = Array.from(document.querySelectorAll<HTMLElement>('[data-test-id="item-iterator-item"]')).map(
			(item) => item.innerText.trim(),
		);
		return texts.length >= count ? { value: texts } : { seen: `${texts.length} listed: ${texts.join(', ')}` };
	});
	for (const model of MODELS)
		check(actions.includes(model.action), `the actions list offers "${model.action}" (lists: ${actions.join(', ')})`);
	await screenshot(page, '02-actions');
	await click(page, testId('item-iterator-item'), BETAV45.action);
	await element(page, PARAMETERS);
	const prompt = `${field('prompt')} textarea`;
	await typeInto(page, prompt, 'A lighthouse on a cliff at dawn, watercolor');
	// Leave the field, as a user moving on does: its input hint (which covers the next field) goes away.
	await page.$eval(prompt, (textarea) => (textarea as HTMLElement).blur());
	await pageValue(page, "the prompt's input hint to go away", [PARAMETERS], (selector) => {
		const tip = Array.from(document.querySelectorAll<HTMLElement>(`${selector} *`)).find(
			(shown) => shown.checkVisibility() && shown.innerText?.startsWith('Tip:'),
		);
		return tip ? { seen: `still shown: ${tip.innerText.slice(0, 120)}` } : { value: true };
	});
	await screenshot(page, '03-node-panel');
	await runInEditor(page, simulatorUrl);
	await screenshot(page, '04-result-image');
	const record = await simulatorRecord(simulatorUrl);
	const posted = record.some((entry) => entry.method === 'POST' && entry.path === BETAV45.path);
	check(posted, `the simulator received ${BETAV45.path}`);
}

/** 3. Back on the canvas: the subtitle names the operation as the actions list does; search from the plus handle. */
async function searchFromPlusHandle(page: Page): Promise<void> {
	await closeWithEscape(page, testId('ndv'));
	const nodeText = await (await element(page, NODE_ON_CANVAS)).evaluate((node) => (node as HTMLElement).innerText);
	const lines = nodeText.split('\n').map((line) => line.trim());
	const shows = lines.join(' | ');
	check(lines.includes(BETAV45.displayName), `the canvas subtitle is "${BETAV45.displayName}" (node shows: ${shows})`);
	await searchFrom(page, PLUS_HANDLE, 'the plus handle after the node', '05-search-plus-handle');
	await closeWithEscape(page, SEARCH_BAR);
}

async function runInBrowser(chromium: string, baseUrl: string, simulatorUrl: string, started: number): Promise<void> {
	const session = await launchChromium(chromium);
	const page = await session.browser.newPage();
	try {
		page.setDefaultTimeout(UI_TIMEOUT);
		const slowdown = Number(process.env.MEDIAGEN_UI_SLOWDOWN ?? 1);
		if (slowdown > 1) {
			await page.emulateCPUThrottling(slowdown);
			log('ui', `the page runs ${slowdown} times slower (MEDIAGEN_UI_SLOWDOWN)`);
		}
		await loginInBrowser(page, baseUrl);
		// 1. A new workflow: "Add first step", then search.
		await page.goto(`${baseUrl}/workflow/new`, { waitUntil: 'domcontentloaded' });
		await searchFrom(page, testId('canvas-plus-button'), 'the first-step panel', '01-search-first-step');
		await addAndRun(page, simulatorUrl);
		await searchFromPlusHandle(page);
		// 4. Every resource × operation in the panel of that node.
		await (await element(page, NODE_ON_CANVAS)).click({ count: 2 });
		await element(page, PARAMETERS);
		const panels = await checkEveryOperation(page);
		log(
			'ui',
			`compared ${panels} panels (every resource × operation, Task operations per Task Type) with the specs (${since(started)})`,
		);
		check(!mismatches.length, `${mismatches.length} panel mismatches:\n  ${mismatches.join('\n  ')}`);
		if (process.argv.includes('--update-docs')) {
			const images = path.join(ROOT, 'docs', 'images');
			mkdirSync(images, { recursive: true });
			copyFileSync(path.join(OUTPUT, '03-node-panel.png'), path.join(images, 'node-panel.png'));
			copyFileSync(path.join(OUTPUT, '04-result-image.png'), path.join(images, 'result-image.png'));
			log('ui', 'docs/images/node-panel.png and docs/images/result-image.png updated');
		}
		log('ui', `passed in ${since(started)}`);
	} catch (error) {
		await screenshot(page, 'failure').catch(() => undefined);
		throw error;
	} finally {
		await session.close();
	}
}

async function main(): Promise<void> {
	const started = Date.now();
	rmSync(OUTPUT, { recursive: true, force: true });
	mkdirSync(OUTPUT, { recursive: true });
	const chromium = ensureChromium('ui');
	await runOnVersions('ui', [VERSION], async (version, tarball) => {
		await withN8n({ scope: 'ui', version, tarball, logFile: path.join(OUTPUT, 'n8n.log') }, async (n8n) => {
			log('ui', `n8n ${VERSION} editor at ${n8n.server.url}, owner set up (${since(started)})`);
			await runInBrowser(chromium, n8n.server.url, n8n.simulator.url, started);
			n8n.step('the editor in Chromium');
		});
	});
}

runMain('ui', main);
