/**
 * `npm run test:ui`: the editor as a new user meets it, in n8n 2.41.1 and Debian's Chromium driven by
 * puppeteer-core (CONTRIBUTING.md, "The editor suite", says what it checks): search, the actions list, a run
 * against the simulator with its image in the output panel, and every resource × operation (Task operations per
 * Task Type) compared with the model specs and the node's description. MEDIAGEN_UI_SLOWDOWN=<n> runs the page n
 * times slower (Chromium's CPU throttling), as on a busy machine: a wait that only holds on a fast one fails there.
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
import { collectionEntries, description, operations, visibleLabels } from '../test/editor-labels';
import { ensureChromium, launchChromium } from './lib/browser';
import { ROOT } from './lib/paths';
import { runMain } from './lib/process';
import { check, log } from './lib/report';
import { OWNER } from './lib/rest';
import { simulatorRecord } from './lib/simulator';
import { runOnVersions, withN8n } from './lib/suite';
import { waitFor, WaitTimeout } from './lib/wait';

const VERSION = '2.41.1';
const OUTPUT = path.join(ROOT, 'test-output', 'ui');
const DOCS_IMAGES = path.join(ROOT, 'docs', 'images');
/** What a new user would type: the node's name, a model, a model family. */
const SEARCH_TERMS = ['MediaGen', 'proimage', 'gamma'];
const NODE_NAME = description.displayName;
const MODELS: ModelSpec[] = [...IMAGE_MODELS, ...VIDEO_MODELS];
const PROMPT = 'A lighthouse on a cliff at dawn, watercolor';
/**
 * Deadlines of the waits (each waits for a condition, never for a fixed time): generous, since a shared
 * 2-core machine busy with other work runs the editor several times slower than an idle one.
 */
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

// ---------------------------------------------------------------------------------------------------------
// Page helpers. Selectors are n8n's data-test-id attributes, as n8n's own end-to-end tests use them.

const testId = (id: string) => `[data-test-id="${id}"]`;
const PARAMETERS = testId('node-parameters');
const OUTPUT_PANEL = testId('output-panel');

/** What a probe run in the page found: the value awaited, or what it saw instead (for the timeout message). */
type Probe<T> = { value: T } | { seen: string; value?: never };

/**
 * Runs `probe` in the page until it returns `{ value }` and returns that value; on the deadline, the error
 * says what it last saw.
 */
async function pageValue<T, Params extends unknown[]>(
	page: Page,
	describe: string,
	probe: (...params: Params) => Probe<T>,
	args: Params,
	deadline = UI_TIMEOUT,
): Promise<T> {
	const run = probe as unknown as (...params: unknown[]) => Promise<Probe<T>>;
	return await waitFor(
		async (see) => {
			const result = await page.evaluate(run, ...args);
			if (!('seen' in result)) return { found: result.value };
			see(result.seen);
			return undefined;
		},
		{ deadline, describe },
	).then((result) => result.found);
}

/** As pageValue, for a probe that returns the element awaited, or a text saying what it saw instead. */
async function pageElement<Params extends unknown[]>(
	page: Page,
	describe: string,
	probe: (...params: Params) => Element | string,
	args: Params,
	deadline = UI_TIMEOUT,
): Promise<ElementHandle<Element>> {
	const run = probe as unknown as (...params: unknown[]) => Element | string;
	return await waitFor(
		async (see) => {
			const handle = await page.evaluateHandle(run, ...args);
			const element = handle.asElement() as ElementHandle<Element> | null;
			if (element) return element;
			see(String(await handle.jsonValue()));
			await handle.dispose();
			return undefined;
		},
		{ deadline, describe },
	);
}

/** The first visible element among `selector`. */
async function visible(page: Page, selector: string): Promise<ElementHandle<Element>> {
	return await pageElement(
		page,
		`${selector} to be visible`,
		(sel) => {
			const all = Array.from(document.querySelectorAll<HTMLElement>(sel));
			const found = all.find((element) => element.checkVisibility({ visibilityProperty: true }));
			if (found) return found;
			if (!all.length) return 'no element matches';
			return `${all.length} match, none visible`;
		},
		[selector],
	);
}

/** Waits until the first element among `selector` is gone or hidden (a panel closed). */
async function hidden(page: Page, selector: string): Promise<void> {
	await pageValue(
		page,
		`${selector} to be hidden`,
		(sel) => (document.querySelector(sel)?.checkVisibility() ? { seen: 'still visible' } : { value: true }),
		[selector],
	);
}

async function click(page: Page, selector: string): Promise<void> {
	await (await visible(page, selector)).click();
}

/**
 * Replaces the text of an input or textarea the way a user types. The field is focused rather than clicked:
 * panels slide in, and a click during the slide can miss.
 */
async function typeInto(page: Page, selector: string, text: string): Promise<void> {
	const input = await pageElement(
		page,
		`an enabled, visible ${selector}`,
		(sel) => {
			const all = Array.from(document.querySelectorAll<HTMLInputElement>(sel));
			const found = all.reverse().find((element) => element.checkVisibility() && !element.disabled);
			if (found) return found;
			return all.length ? `${all.length} match, none both visible and enabled` : 'no element matches';
		},
		[selector],
	);
	await (input as ElementHandle<HTMLInputElement>).evaluate((element) => {
		element.focus();
		element.select();
	});
	await page.keyboard.press('Backspace');
	await page.keyboard.type(text);
}

/** The visible element among `selector` whose text (first line) is `text`. */
async function byText(
	page: Page,
	selector: string,
	text: string,
	timeout = UI_TIMEOUT,
): Promise<ElementHandle<Element>> {
	return await pageElement(
		page,
		`${selector} showing "${text}"`,
		(sel, wanted) => {
			const all = Array.from(document.querySelectorAll<HTMLElement>(sel));
			const found = all.find(
				(element) => element.offsetParent !== null && element.innerText.split('\n')[0].trim() === wanted,
			);
			if (found) return found;
			const shown = all.filter((element) => element.offsetParent !== null);
			return `${all.length} match, ${shown.length} shown: ${shown
				.map((element) => JSON.stringify(element.innerText.split('\n')[0].trim().slice(0, 60)))
				.join(', ')}`;
		},
		[selector, text],
		timeout,
	);
}

/**
 * Clicks an entry of a dropdown list once the list has stopped moving: lists animate in and move when the
 * panel grows, and a click during that can land on a neighbouring entry.
 */
async function clickWhenSettled(page: Page, handle: ElementHandle<Element>): Promise<void> {
	await handle.scrollIntoView();
	await waitFor(
		async (see) => {
			const moved = await handle.evaluate(
				(element) =>
					new Promise<string | undefined>((resolve) => {
						const before = JSON.stringify(element.getBoundingClientRect());
						requestAnimationFrame(() =>
							requestAnimationFrame(() => {
								const after = JSON.stringify(element.getBoundingClientRect());
								resolve(after === before ? undefined : `moving: ${before} → ${after}`);
							}),
						);
					}),
			);
			if (moved) see(moved);
			return !moved;
		},
		{ deadline: UI_TIMEOUT, describe: 'the list entry to stop moving', interval: 50 },
	);
	await handle.click();
}

async function screenshot(page: Page, name: string): Promise<void> {
	const file = path.join(OUTPUT, `${name}.png`) as `${string}.png`;
	mkdirSync(path.dirname(file), { recursive: true });
	await page.screenshot({ path: file });
	log('ui', `screenshot ${path.relative(ROOT, file)}`);
}

// ---------------------------------------------------------------------------------------------------------
// The nodes panel

/**
 * Types `term` into the nodes panel's search and returns the node names it lists once it lists the node. The
 * list filters as the user types, and "No results" can be an earlier term's answer for a moment: only the node
 * listed for the whole term ends the wait; the deadline's error quotes what the list showed last.
 */
async function searchNodes(page: Page, term: string): Promise<string[]> {
	await typeInto(page, `input${testId('node-creator-search-bar')}`, term);
	return await pageValue(
		page,
		`the nodes panel to list ${NODE_NAME} for "${term}"`,
		(wanted, name) => {
			const input = document.querySelector<HTMLInputElement>('input[data-test-id="node-creator-search-bar"]');
			const names = Array.from(document.querySelectorAll<HTMLElement>('[data-test-id="node-creator-item-name"]')).map(
				(element) => element.innerText.trim(),
			);
			if (input?.value === wanted && names.includes(name)) return { value: names };
			const noResults = document.querySelector('[data-test-id="node-creator-no-results"]') ? ', "No results"' : '';
			return { seen: `search box "${input?.value ?? '(none)'}", listed [${names.join(', ')}]${noResults}` };
		},
		[term, NODE_NAME],
	);
}

async function assertFoundBySearch(page: Page, where: string): Promise<void> {
	for (const term of SEARCH_TERMS) {
		const names = await searchNodes(page, term);
		check(
			names.includes(NODE_NAME),
			`searching "${term}" from ${where} lists ${NODE_NAME} (listed: ${names.join(', ') || 'nothing, "No results"'})`,
		);
		log('ui', `search "${term}" from ${where}: ${NODE_NAME} listed`);
	}
}

// ---------------------------------------------------------------------------------------------------------
// The node's panel (NDV)

/** Labels of the parameters the panel shows at the top level (not the entries inside collections). */
async function panelLabels(page: Page): Promise<string[]> {
	return await page.$$eval(`${PARAMETERS} [data-test-id="parameter-item"]`, (items) => {
		const labels: string[] = [];
		for (const item of items as HTMLElement[]) {
			if (item.offsetParent === null || item.parentElement?.closest('[data-test-id="parameter-item"]')) continue;
			for (const title of Array.from(item.querySelectorAll<HTMLElement>('[class*="title"]'))) {
				if (
					title.closest('[data-test-id="parameter-item"]') !== item ||
					title.closest('.multi-parameter .parameter-item')
				)
					continue;
				const text = title.innerText.trim();
				if (text && !labels.includes(text)) labels.push(text);
			}
		}
		return labels;
	});
}

/**
 * A collection's entries: `offered` in its "Add …" list, and `set` (already added, so no longer offered).
 * Values set for one operation stay when the user switches to another that has the same collection.
 */
async function collectionState(page: Page, label: string): Promise<{ offered: string[]; set: string[] }> {
	return await page.$$eval(
		`${PARAMETERS} [data-test-id="parameter-item"]`,
		(items, wanted) => {
			const item = (items as HTMLElement[]).find(
				(candidate) =>
					candidate.offsetParent !== null &&
					candidate.querySelector('.multi-parameter') &&
					candidate.innerText.split('\n')[0].trim() === wanted,
			);
			const listId = item
				?.querySelector('[data-test-id="collection-parameter-add"] input')
				?.getAttribute('aria-controls');
			const list = listId ? document.getElementById(listId) : null;
			// A collection of one option has no list: n8n shows a button that adds it, labelled "Add <option>".
			const single = Array.from(item?.querySelectorAll<HTMLElement>('button') ?? [])
				.map((button) => button.innerText.trim())
				.find((text) => text.startsWith('Add '));
			const offered = list
				? Array.from(list.querySelectorAll<HTMLElement>('[data-test-id="collection-parameter-option"]')).map((option) =>
						option.textContent!.trim(),
					)
				: single
					? [single.replace(/^Add /, '')]
					: [];
			const set = item
				? Array.from(
						item.querySelectorAll<HTMLElement>('.multi-parameter [data-test-id="parameter-item"] [class*="title"]'),
					).map((title) => title.innerText.trim())
				: [];
			return { offered, set };
		},
		label,
	);
}

/** The list that the dropdown `trigger` (a select) opens, and whether it is open. */
async function dropdownList(page: Page, trigger: ElementHandle<Element>): Promise<{ selector: string; open: boolean }> {
	const listId = await trigger.$eval('input', (input) => input.getAttribute('aria-controls'));
	check(listId, 'the dropdown names the list it opens');
	const selector = `[id="${listId}"]`;
	const open = await page.$eval(selector, (list) => (list as HTMLElement).offsetParent !== null).catch(() => false);
	return { selector, open };
}

/**
 * One look at picking `entry` in the list the dropdown `trigger` opens, acting on what the page shows: a closed
 * list is opened; in an open one the entry, once shown, is clicked when it stops moving (a click while the list
 * animates in can miss; a list that closes meanwhile is opened again on the next look).
 */
async function pickStep(
	page: Page,
	trigger: ElementHandle<Element>,
	entrySelector: string,
	entry: string,
	see: (seen: string) => void,
	state: string,
): Promise<void> {
	const list = await dropdownList(page, trigger);
	if (!list.open) {
		see(`${state}, its list closed: opening it`);
		await trigger.click();
		return;
	}
	see(`${state} after clicking "${entry}" in its open list`);
	await byText(page, `${list.selector} ${entrySelector}`, entry, 0)
		.then(async (handle) => await clickWhenSettled(page, handle))
		.catch((error: Error) => see(`${state}; "${entry}" in its open list: ${error.message}`));
}

/** The value the input of parameter `name` shows, or undefined when the panel has no such parameter. */
async function inputValue(page: Page, name: string): Promise<string | undefined> {
	return await page
		.$eval(`${testId(`parameter-input-${name}`)} input`, (input) => (input as HTMLInputElement).value)
		.catch(() => undefined);
}

/** Picks `optionText` in the dropdown of parameter `name` and waits until the panel shows it chosen. */
async function choose(page: Page, name: string, optionText: string): Promise<void> {
	await waitFor(
		async (see) => {
			const current = await inputValue(page, name);
			if (current === optionText) return true;
			if (current === undefined) {
				see(`${name} is not in the panel`);
				return false;
			}
			const trigger = await visible(page, testId(`parameter-input-${name}`));
			await pickStep(page, trigger, '.el-select-dropdown__item', optionText, see, `${name} shows "${current}"`);
			return false;
		},
		{ deadline: UI_TIMEOUT, describe: `${name} to show "${optionText}" after choosing it`, interval: 500 },
	);
}

/** Adds an entry of the collection labelled `label` and returns the value its input shows. */
async function addCollectionEntry(page: Page, label: string, entry: string, parameter: string): Promise<string> {
	return await waitFor(
		async (see) => {
			// Added (also by a click that landed on a neighbouring entry and added this one): its value, once shown.
			const shown = await inputValue(page, parameter);
			if (shown) return shown;
			if (shown !== undefined) {
				see(`"${entry}" added, its input still empty`);
				return undefined;
			}
			const item = await byText(page, `${PARAMETERS} [data-test-id="parameter-item"]`, label);
			const add = await item.$(testId('collection-parameter-add'));
			check(add, `the ${label} collection has an add list`);
			await pickStep(page, add, testId('collection-parameter-option'), entry, see, `"${entry}" not added`);
			return undefined;
		},
		{ deadline: UI_TIMEOUT, describe: `${label} to show "${entry}" with a value after adding it`, interval: 500 },
	);
}

/**
 * Focuses and leaves a field, as a user skipping it does, and waits until n8n flags it as needing a value (or
 * not) as `flagged` says; returns whether it is flagged once that holds or the deadline has passed.
 */
async function flaggedWhenLeftEmpty(page: Page, parameter: string, flagged: boolean): Promise<boolean> {
	const field = `${testId(`parameter-input-${parameter}`)}`;
	await click(page, `${field} textarea, ${field} input`);
	await page.keyboard.down('Control');
	await page.keyboard.press('a');
	await page.keyboard.up('Control');
	await page.keyboard.press('Backspace');
	await page.$eval(`${field} textarea, ${field} input`, (input) => (input as HTMLElement).blur());
	const isFlagged = () => page.$eval(field, (element) => element.classList.contains('has-issues')).catch(() => false);
	return await waitFor(async () => ((await isFlagged()) === flagged ? { flagged } : undefined), {
		deadline: PANEL_TIMEOUT,
		describe: `${parameter} left empty to be ${flagged ? '' : 'not '}flagged`,
	})
		.then(() => flagged)
		.catch(async (error) => {
			if (!(error instanceof WaitTimeout)) throw error;
			return await isFlagged();
		});
}

function specFor(operation: string): ModelSpec | undefined {
	return MODELS.find((model) => model.operation === operation);
}

/** The model spec's own fields, placed as the spec says (main panel or Additional Fields). */
function specLabels(spec: ModelSpec): { main: string[]; additional: string[] } {
	const main = spec.fields.filter((field) => field.placement === 'main').map((field) => field.displayName);
	const additional = spec.fields.filter((field) => field.placement === 'additional').map((field) => field.displayName);
	const references = spec.references;
	if (references?.urlField) main.push(references.urlField.displayName);
	if (references?.valueField) additional.push(references.valueField.displayName);
	return { main, additional };
}

/** What the panel shows for one choice: its top-level field labels and each collection's entries. */
interface PanelState {
	labels: string[];
	collections: Record<string, { offered: string[]; set: string[] }>;
}

async function panelState(page: Page): Promise<PanelState> {
	const labels = (await panelLabels(page)).filter((label) => label !== 'Credential');
	const collections: PanelState['collections'] = {};
	for (const property of description.properties.filter((candidate) => candidate.type === 'collection'))
		if (labels.includes(property.displayName))
			collections[property.displayName] = await collectionState(page, property.displayName);
	return { labels, collections };
}

/**
 * The panel once it shows what the description says for `choices`, or, when the deadline passes first, as it
 * was last seen. On a busy machine the panel has been read showing the previous choice's fields after the
 * dropdown showed the new one: a read at once can compare the wrong panel.
 */
async function settledPanel(
	page: Page,
	choices: Record<string, string>,
	where: string,
): Promise<{ state: PanelState; problems: string[] }> {
	const expectedLabels = visibleLabels(choices);
	let last: { state: PanelState; problems: string[] } | undefined;
	const compare = (state: PanelState) => {
		const problems: string[] = [];
		const { missing, extra } = sameSet(state.labels, expectedLabels);
		if (missing.length || extra.length)
			problems.push(
				`${where}: panel fields ${JSON.stringify(state.labels)}; the description shows ${JSON.stringify(expectedLabels)} (missing ${missing.join(', ') || '-'}; unexpected ${extra.join(', ') || '-'})`,
			);
		for (const collection of ['additionalFields', 'options']) {
			const property = description.properties.find(
				(candidate) => candidate.name === collection && expectedLabels.includes(candidate.displayName),
			);
			if (!property) continue;
			const { offered, set } = state.collections[property.displayName] ?? { offered: [], set: [] };
			const expected = collectionEntries(choices, collection).map((entry) => entry.displayName);
			const difference = sameSet([...offered, ...set], expected);
			if (difference.missing.length || difference.extra.length)
				problems.push(
					`${where}: ${property.displayName} offers ${JSON.stringify(offered)} (set: ${JSON.stringify(set)}); expected ${JSON.stringify(expected)}`,
				);
		}
		return { state, problems };
	};
	const started = Date.now();
	let checks = 0;
	try {
		const settled = await waitFor(
			async (see) => {
				checks++;
				last = compare(await panelState(page));
				// The dropdowns too: a panel that shows another choice's fields says which choice it shows.
				const shown = await page.$$eval(
					Object.keys(choices)
						.map((name) => `[data-test-id="parameter-input-${name}"] input`)
						.join(', '),
					(inputs) => inputs.map((input) => `"${(input as HTMLInputElement).value}"`).join(', '),
				);
				see(`${last.problems.join('; ')} (the dropdowns show ${shown})`);
				return last.problems.length ? undefined : last;
			},
			{ deadline: PANEL_TIMEOUT, describe: `${where}: the panel to show the description's fields`, interval: 500 },
		);
		// How often, and how long, the panel lags behind a choice on this machine: worth seeing in the log.
		if (checks > 1)
			log('ui', `${where}: the panel showed the choice's fields after ${((Date.now() - started) / 1000).toFixed(1)} s`);
		return settled;
	} catch (error) {
		if (!(error instanceof WaitTimeout) || !last) throw error;
		log('ui', `${where}: the panel did not match within ${PANEL_TIMEOUT / 1000} s (${error.message})`);
		return last;
	}
}

/** Opens one resource/operation (and Task Type) in the panel and compares it with the specs and the description. */
async function checkOperation(page: Page, choices: Record<string, string>, where: string): Promise<void> {
	const { state, problems } = await settledPanel(page, choices, where);
	for (const problem of problems) expect(false, problem);
	const labels = state.labels;

	const spec = specFor(choices.operation);
	if (spec) {
		const fromSpec = specLabels(spec);
		for (const label of fromSpec.main)
			expect(labels.includes(label), `${where}: the ${spec.operation} spec's field "${label}" is in the panel`);
		const { offered, set } = state.collections['Additional Fields'] ?? { offered: [], set: [] };
		const additional = [...offered, ...set];
		for (const label of fromSpec.additional)
			expect(
				additional.includes(label),
				`${where}: the ${spec.operation} spec's field "${label}" is under Additional Fields`,
			);
		// No field of another model leaks into this one's panel.
		const own = new Set([...fromSpec.main, ...fromSpec.additional]);
		for (const other of MODELS.filter((model) => model !== spec)) {
			const { main, additional: otherAdditional } = specLabels(other);
			for (const label of main)
				if (!own.has(label))
					expect(!labels.includes(label), `${where}: "${label}" (a ${other.operation} field) is not in the panel`);
			for (const label of otherAdditional)
				if (!own.has(label))
					expect(
						!additional.includes(label),
						`${where}: "${label}" (a ${other.operation} field) is not under Additional Fields`,
					);
		}
		const prompt = spec.fields.find((field) => field.wire === 'prompt');
		if (prompt) {
			const multiline = await page.$(`${testId('parameter-input-prompt')} textarea`);
			expect(multiline, `${where}: Prompt is a multi-line input`);
			const flagged = await flaggedWhenLeftEmpty(page, 'prompt', !!prompt.required);
			expect(
				flagged === !!prompt.required,
				`${where}: Prompt left empty is ${flagged ? '' : 'not '}flagged as needing a value; the spec says required: ${!!prompt.required}`,
			);
		}
	}
}

/** Task → Wait shows the waiting defaults of the chosen Task Type. */
async function checkWaitDefaults(page: Page, taskType: string, where: string): Promise<void> {
	const kinds: TaskType[] = taskType === TASK_TYPE_FROM_INPUT ? ['image', 'video'] : [taskType as TaskType];
	const defaults = waitDefaults(kinds);
	const shown = {
		pollInterval: await addCollectionEntry(page, 'Options', 'Poll Interval (Seconds)', 'pollInterval'),
		maxWait: await addCollectionEntry(page, 'Options', 'Max Wait (Seconds)', 'maxWait'),
		requestTimeout: await addCollectionEntry(page, 'Options', 'Request Timeout (Seconds)', 'requestTimeout'),
	};
	for (const [name, value] of Object.entries(shown)) {
		const expected = defaults[name as keyof typeof defaults];
		expect(
			Number(value) === expected,
			`${where}: ${name} shows ${value}, the default for ${kinds.join(' and ')} tasks is ${expected}`,
		);
	}
	log(
		'ui',
		`${where}: defaults poll ${shown.pollInterval} s, max wait ${shown.maxWait} s, request timeout ${shown.requestTimeout} s`,
	);
}

async function checkEveryOperation(page: Page): Promise<number> {
	const resourceNames = Object.fromEntries(
		(
			description.properties.find((property) => property.name === 'resource')!.options as Array<{
				name: string;
				value: string;
			}>
		).map((option) => [option.value, option.name]),
	);
	const taskTypes = description.properties.find((property) => property.name === 'taskType')!.options as Array<{
		name: string;
		value: string;
	}>;
	const list = operations();
	check(
		MODELS.every((model) => list.some((entry) => entry.operation === model.operation)),
		'every model spec is an operation of the node',
	);
	let panels = 0;
	for (const { resource, operation, name } of list) {
		await choose(page, 'resource', resourceNames[resource]);
		await choose(page, 'operation', name);
		if (resource !== 'task') {
			await checkOperation(page, { resource, operation }, `${resourceNames[resource]} → ${name}`);
			await screenshot(page, `operations/${resource}-${operation}`);
			panels++;
			continue;
		}
		for (const taskType of taskTypes) {
			await choose(page, 'taskType', taskType.name);
			const where = `Task → ${name} (Task Type ${taskType.name})`;
			await checkOperation(page, { resource, operation, taskType: taskType.value }, where);
			if (operation === 'wait') await checkWaitDefaults(page, taskType.value, where);
			await screenshot(page, `operations/${resource}-${operation}-${taskType.value}`);
			panels++;
		}
	}
	return panels;
}

// ---------------------------------------------------------------------------------------------------------

async function loginInBrowser(page: Page, url: string): Promise<void> {
	await page.goto(`${url}/signin`, { waitUntil: 'domcontentloaded' });
	await typeInto(page, `${testId('emailOrLdapLoginId')} input`, OWNER.email);
	await typeInto(page, `${testId('password')} input`, OWNER.password);
	await click(page, testId('form-submit-button'));
	await pageValue(
		page,
		'the sign-in to leave /signin',
		() => (location.pathname.startsWith('/signin') ? { seen: `at ${location.pathname}` } : { value: true }),
		[],
	);
}

/** Runs the open node with "Execute step" and checks its output, as JSON and as an image. */
async function runInEditor(page: Page, simulatorUrl: string): Promise<void> {
	const started = Date.now();
	await click(page, testId('node-execute-button'));
	await pageValue(
		page,
		'the output panel to show the run',
		(selector) =>
			document.querySelector(
				`${selector} [data-test-id="node-run-status-success"], ${selector} [data-test-id="ndv-items-count"]`,
			)
				? { value: true }
				: {
						seen: `the output panel shows: ${(document.querySelector<HTMLElement>(selector)?.innerText ?? '(no panel)').replace(/\s+/g, ' ').slice(0, 300)}`,
					},
		[OUTPUT_PANEL],
		RUN_TIMEOUT,
	);
	log('ui', `beta v4.5 creation ran in the editor in ${((Date.now() - started) / 1000).toFixed(1)} s`);

	await click(page, `${OUTPUT_PANEL} ${testId('radio-button-json')}`);
	const output = await pageValue(
		page,
		'the output JSON to show a taskid',
		(selector) => {
			const text = document.querySelector<HTMLElement>(`${selector} [data-test-id="ndv-data-container"]`)?.innerText;
			return text?.includes('"taskid"')
				? { value: text }
				: { seen: `the data shows: ${(text ?? '(nothing)').slice(0, 300)}` };
		},
		[OUTPUT_PANEL],
	);
	check(/"status":\s*"completed"/.test(output), `the output JSON says status "completed": ${output.slice(0, 400)}`);
	check(output.includes(`"${simulatorUrl}/files/`), `the output JSON lists the result URL: ${output.slice(0, 400)}`);

	await click(page, `${OUTPUT_PANEL} ${testId('radio-button-binary')}`);
	const name = await pageValue(
		page,
		'the binary view to name the file',
		(selector) => {
			const text = document.querySelector<HTMLElement>(`${selector} [data-test-id="ndv-binary-data_0"]`)?.innerText;
			const found = /File Name:\s*(\S+)/.exec(text ?? '')?.[1];
			return found ? { value: found } : { seen: `the binary view shows: ${(text ?? '(nothing)').slice(0, 300)}` };
		},
		[OUTPUT_PANEL],
	);
	const taskId = /"taskid":\s*"([^"]+)"/.exec(output)?.[1];
	check(taskId && name.startsWith(taskId), `the file is named after the task (${name}, task ${taskId})`);
	await click(page, `${OUTPUT_PANEL} ${testId('ndv-view-binary-data')}`);
	const size = await pageValue(
		page,
		'the output panel to show the image',
		(selector) => {
			const img = Array.from(document.querySelectorAll<HTMLImageElement>(`${selector} img`)).find((candidate) =>
				candidate.src.includes('/rest/binary-data'),
			);
			if (img && img.complete && img.naturalWidth > 0) return { value: `${img.naturalWidth}x${img.naturalHeight}` };
			return { seen: img ? `the image ${img.complete ? 'loaded empty' : 'still loading'}` : 'no binary-data image' };
		},
		[OUTPUT_PANEL],
	);
	log('ui', `the output panel shows ${name} as a ${size} image`);
}

/** 1. A new workflow: "Add first step", then search. */
async function firstStep(page: Page, baseUrl: string): Promise<void> {
	await page.goto(`${baseUrl}/workflow/new`, { waitUntil: 'domcontentloaded' });
	await click(page, testId('canvas-plus-button'));
	await assertFoundBySearch(page, 'the first-step panel');
	await screenshot(page, '01-search-first-step');
}

/** 2. Its actions list names every model; add beta v4.5 from it, as a user picks an operation, and run it. */
async function addAndRun(page: Page, simulatorUrl: string): Promise<void> {
	await searchNodes(page, NODE_NAME);
	await (await byText(page, testId('node-creator-item-name'), NODE_NAME)).click();
	const actionTexts = await pageValue(
		page,
		`the actions list to show at least ${MODELS.length} actions`,
		(count) => {
			const texts = Array.from(document.querySelectorAll<HTMLElement>('[data-test-id="item-iterator-item"]')).map(
				(element) => element.innerText.trim(),
			);
			return texts.length >= count ? { value: texts } : { seen: `${texts.length} listed: ${texts.join(', ')}` };
		},
		[MODELS.length],
	);
	for (const model of MODELS)
		check(
			actionTexts.includes(model.action),
			`the actions list offers "${model.action}" (lists: ${actionTexts.join(', ')})`,
		);
	await screenshot(page, '02-actions');
	await (await byText(page, testId('item-iterator-item'), BETAV45.action)).click();
	await visible(page, PARAMETERS);
	await typeInto(page, `${testId('parameter-input-prompt')} textarea`, PROMPT);
	// Leave the field, as a user moving on does: its input hint (which covers the next field) goes away.
	await page.$eval(`${testId('parameter-input-prompt')} textarea`, (element) => (element as HTMLElement).blur());
	await pageValue(
		page,
		"the prompt's input hint to go away",
		(selector) => {
			const tip = Array.from(document.querySelectorAll<HTMLElement>(`${selector} *`)).find(
				(element) => element.checkVisibility() && element.innerText?.startsWith('Tip:'),
			);
			return tip ? { seen: `still shown: ${tip.innerText.slice(0, 120)}` } : { value: true };
		},
		[PARAMETERS],
	);
	await screenshot(page, '03-node-panel');
	await runInEditor(page, simulatorUrl);
	await screenshot(page, '04-result-image');
	const record = await simulatorRecord(simulatorUrl);
	check(
		record.some((entry) => entry.method === 'POST' && entry.path === BETAV45.path),
		`the simulator received ${BETAV45.path}`,
	);
}

/** The node added in step 2, on the canvas. */
const nodeSelector = `${testId('canvas-node')}[data-node-name="${BETAV45.action}"]`;

/** 3. Back on the canvas: the subtitle names the operation as the actions list does; search from the plus handle. */
async function searchFromPlusHandle(page: Page): Promise<void> {
	await page.keyboard.press('Escape');
	await hidden(page, testId('ndv'));
	const nodeText = await (await visible(page, nodeSelector)).evaluate((element) => (element as HTMLElement).innerText);
	check(
		nodeText
			.split('\n')
			.map((line) => line.trim())
			.includes(BETAV45.displayName),
		`the canvas subtitle is "${BETAV45.displayName}" (node shows: ${nodeText.replace(/\n/g, ' | ')})`,
	);
	await click(
		page,
		`${testId('canvas-node-output-handle')}[data-node-name="${BETAV45.action}"] ${testId('canvas-handle-plus')}`,
	);
	await assertFoundBySearch(page, 'the plus handle after the node');
	await screenshot(page, '05-search-plus-handle');
	await page.keyboard.press('Escape');
	await hidden(page, `input${testId('node-creator-search-bar')}`);
}

/** The editor in Chromium, step by step, signed in as the owner. */
async function runInBrowser(chromium: string, baseUrl: string, simulatorUrl: string, started: number): Promise<void> {
	const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`;
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
		await firstStep(page, baseUrl);
		await addAndRun(page, simulatorUrl);
		await searchFromPlusHandle(page);
		// 4. Every resource × operation in the panel of that node.
		await (await visible(page, nodeSelector)).click({ count: 2 });
		await visible(page, PARAMETERS);
		const panels = await checkEveryOperation(page);
		log(
			'ui',
			`compared ${panels} panels (every resource × operation, Task operations per Task Type) with the specs (${seconds()})`,
		);
		check(!mismatches.length, `${mismatches.length} panel mismatches:\n  ${mismatches.join('\n  ')}`);
		if (process.argv.includes('--update-docs')) {
			mkdirSync(DOCS_IMAGES, { recursive: true });
			copyFileSync(path.join(OUTPUT, '03-node-panel.png'), path.join(DOCS_IMAGES, 'node-panel.png'));
			copyFileSync(path.join(OUTPUT, '04-result-image.png'), path.join(DOCS_IMAGES, 'result-image.png'));
			log('ui', 'docs/images/node-panel.png and docs/images/result-image.png updated');
		}
		log('ui', `passed in ${seconds()}`);
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
		const options = { scope: 'ui', version, tarball, logFile: path.join(OUTPUT, 'n8n.log') };
		await withN8n(options, async (n8n) => {
			log(
				'ui',
				`n8n ${VERSION} editor at ${n8n.server.url}, owner set up (${Math.round((Date.now() - started) / 1000)} s)`,
			);
			await runInBrowser(chromium, n8n.server.url, n8n.simulator.url, started);
			n8n.step('the editor in Chromium');
		});
	});
}

runMain('ui', main);
