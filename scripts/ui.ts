/**
 * `npm run test:ui`: the editor experience in a real browser.
 *
 * Real n8n 2.41.1 (`n8n start` from the shared installer, its own user folder and ports) with the packed
 * tarball installed as a community package, the API simulator, and Debian's Chromium driven by puppeteer-core.
 * In the editor, as a new user would:
 *   1. find MediaGen by searching "MediaGen", "proimage" and "gamma" from the first-step panel;
 *   2. add it through its actions list (every model's action must be listed), run "Create an image with
 *      beta v4.5" against the simulator without touching any option, and see the image in the output
 *      panel's binary view (Download Results is on by default; one output shape; files named after the task);
 *   3. find it again by search from the plus handle after the node on the canvas;
 *   4. open every resource × operation (and every Task Type) and compare the panel with the node's model specs
 *      (nodes/MediaGen/models) and its description: field labels, Additional Fields and Options entries,
 *      required Prompt, multi-line prompts, and Task → Wait's defaults per task type.
 * Screenshots go to test-output/ui/; `npm run test:ui -- --update-docs` also refreshes the README's two
 * screenshots in docs/images/.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { ElementHandle, Page } from 'puppeteer-core';

import { TASK_TYPE_FROM_INPUT } from '../nodes/MediaGen/request/taskItem';
import { waitDefaults } from '../nodes/MediaGen/waiting/options';
import type { TaskType } from '../nodes/MediaGen/models/endpoints';
import { BETAV45, IMAGE_MODELS } from '../nodes/MediaGen/models/image';
import type { ModelSpec } from '../nodes/MediaGen/models/types';
import { VIDEO_MODELS } from '../nodes/MediaGen/models/video';
import { collectionEntries, description, operations, visibleLabels } from '../test/editor-labels';
import { ensureChromium, launchChromium, type BrowserSession } from './lib/browser';
import { ensureN8n, installCommunityPackage, packPackage } from './lib/installer';
import { n8nCommand, n8nEnv, startN8nServer, type N8nServer, writeCredentials } from './lib/n8n';
import { ROOT } from './lib/paths';
import { runMain, stopProcess } from './lib/process';
import { check, log } from './lib/report';
import { OWNER, setupOwner } from './lib/rest';
import { simulatorRecord, startSimulator, type SimulatorProcess } from './lib/simulator';

const VERSION = '2.41.1';
const OUTPUT = path.join(ROOT, 'test-output', 'ui');
const DOCS_IMAGES = path.join(ROOT, 'docs', 'images');
/** What a new user would type: the node's name, a model, a model family. */
const SEARCH_TERMS = ['MediaGen', 'proimage', 'gamma'];
const NODE_NAME = description.displayName;
const MODELS: ModelSpec[] = [...IMAGE_MODELS, ...VIDEO_MODELS];
const PROMPT = 'A lighthouse on a cliff at dawn, watercolor';
/** Slow shared machines: waits are generous, and each waits for a condition, never for a fixed time. */
const UI_TIMEOUT = 90_000;
const RUN_TIMEOUT = 180_000;

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

async function visible(page: Page, selector: string, timeout = UI_TIMEOUT): Promise<ElementHandle<Element>> {
	const handle = await page.waitForSelector(selector, { visible: true, timeout });
	check(handle, `${selector} is visible`);
	return handle;
}

async function click(page: Page, selector: string): Promise<void> {
	await (await visible(page, selector)).click();
}

/**
 * Replaces the text of an input or textarea the way a user types. The field is focused rather than clicked:
 * panels slide in, and a click during the slide can miss.
 */
async function typeInto(page: Page, selector: string, text: string): Promise<void> {
	const input = await page.waitForFunction(
		(sel) =>
			Array.from(document.querySelectorAll<HTMLInputElement>(sel))
				.reverse()
				.find((element) => element.checkVisibility() && !element.disabled),
		{ timeout: UI_TIMEOUT },
		selector,
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
	const handle = await page.waitForFunction(
		(sel, wanted) =>
			Array.from(document.querySelectorAll<HTMLElement>(sel)).find(
				(element) => element.offsetParent !== null && element.innerText.split('\n')[0].trim() === wanted,
			),
		{ timeout },
		selector,
		text,
	);
	return handle as ElementHandle<Element>;
}

/**
 * Clicks an entry of a dropdown list once the list has stopped moving: lists animate in and move when the
 * panel grows, and a click during that can land on a neighbouring entry.
 */
async function clickWhenSettled(page: Page, handle: ElementHandle<Element>): Promise<void> {
	await handle.scrollIntoView();
	await page.waitForFunction(
		(element) =>
			new Promise<boolean>((resolve) => {
				const before = JSON.stringify(element.getBoundingClientRect());
				requestAnimationFrame(() =>
					requestAnimationFrame(() => resolve(JSON.stringify(element.getBoundingClientRect()) === before)),
				);
			}),
		{ timeout: UI_TIMEOUT },
		handle,
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

/** Types `term` into the nodes panel's search and returns the node names it lists once it has answered. */
async function searchNodes(page: Page, term: string): Promise<string[]> {
	await typeInto(page, `input${testId('node-creator-search-bar')}`, term);
	const listed = () =>
		page.$$eval(testId('node-creator-item-name'), (elements) =>
			elements.map((element) => (element as HTMLElement).innerText.trim()),
		);
	// The list filters as the user types: wait until it lists the node for the whole term, or says "No results".
	const answered = await page
		.waitForFunction(
			(wanted, name) => {
				const input = document.querySelector<HTMLInputElement>('input[data-test-id="node-creator-search-bar"]');
				if (input?.value !== wanted) return false;
				const names = Array.from(document.querySelectorAll<HTMLElement>('[data-test-id="node-creator-item-name"]')).map(
					(element) => element.innerText.trim(),
				);
				return names.includes(name) || !!document.querySelector('[data-test-id="node-creator-no-results"]');
			},
			{ timeout: 30_000 },
			term,
			NODE_NAME,
		)
		.then(() => true)
		.catch(() => false);
	if (answered && !(await listed()).includes(NODE_NAME)) {
		// "No results" can be the previous term's answer for a moment: give the list a last chance to show the node.
		await page
			.waitForFunction(
				(name) =>
					Array.from(document.querySelectorAll<HTMLElement>('[data-test-id="node-creator-item-name"]')).some(
						(element) => element.innerText.trim() === name,
					),
				{ timeout: 5_000 },
				NODE_NAME,
			)
			.catch(() => undefined);
	}
	return await listed();
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
			const offered = list
				? Array.from(list.querySelectorAll<HTMLElement>('[data-test-id="collection-parameter-option"]')).map((option) =>
						option.textContent!.trim(),
					)
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

/** Picks `optionText` in the dropdown of parameter `name` and waits until the panel shows it chosen. */
async function choose(page: Page, name: string, optionText: string): Promise<void> {
	const field = testId(`parameter-input-${name}`);
	const chosen = () =>
		page
			.waitForFunction(
				(selector, wanted) => document.querySelector<HTMLInputElement>(`${selector} input`)?.value === wanted,
				{ timeout: 10_000 },
				field,
				optionText,
			)
			.then(() => true)
			.catch(() => false);
	for (let attempt = 1; ; attempt++) {
		const current = await page.$eval(`${field} input`, (input) => (input as HTMLInputElement).value);
		if (current === optionText) return;
		const trigger = await visible(page, field);
		// A click can land while the list is still opening (it animates in): then open it and pick again.
		const list = await dropdownList(page, trigger);
		if (!list.open) await trigger.click();
		const clicked = await clickWhenSettled(
			page,
			await byText(page, `${list.selector} .el-select-dropdown__item`, optionText),
		)
			.then(() => true)
			.catch(() => false);
		if (clicked && (await chosen())) return;
		check(attempt < 4, `${name} shows "${optionText}" after choosing it`);
		log('ui', `choosing "${optionText}" for ${name} did not take (attempt ${attempt}); again`);
	}
}

/** Adds an entry of the collection labelled `label` and returns the value its input shows. */
async function addCollectionEntry(page: Page, label: string, entry: string, parameter: string): Promise<string> {
	const field = testId(`parameter-input-${parameter}`);
	const shownValue = () =>
		page
			.waitForFunction(
				(selector) => document.querySelector<HTMLInputElement>(`${selector} input`)?.value || undefined,
				{ timeout: 10_000 },
				field,
			)
			.then(async (value) => String(await value.jsonValue()))
			.catch(() => undefined);
	for (let attempt = 1; ; attempt++) {
		// A click that landed on a neighbouring entry may have added this one already.
		if (await page.$(field)) return (await shownValue()) ?? '';
		const item = await byText(page, `${PARAMETERS} [data-test-id="parameter-item"]`, label);
		const add = await item.$(testId('collection-parameter-add'));
		check(add, `the ${label} collection has an add list`);
		const list = await dropdownList(page, add);
		if (!list.open) await add.click();
		// A list that closes while it is clicked ("not clickable") is opened again on the next attempt.
		await clickWhenSettled(
			page,
			await byText(page, `${list.selector} ${testId('collection-parameter-option')}`, entry),
		).catch(() => undefined);
		const value = await shownValue();
		if (value !== undefined) return value;
		check(attempt < 4, `${label} shows "${entry}" after adding it`);
		log('ui', `adding "${entry}" to ${label} did not take (attempt ${attempt}); again`);
	}
}

/** Focuses and leaves a field, as a user skipping it does; returns whether n8n then flags it as needing a value. */
async function flaggedWhenLeftEmpty(page: Page, parameter: string): Promise<boolean> {
	const field = `${testId(`parameter-input-${parameter}`)}`;
	await click(page, `${field} textarea, ${field} input`);
	await page.keyboard.down('Control');
	await page.keyboard.press('a');
	await page.keyboard.up('Control');
	await page.keyboard.press('Backspace');
	await page.$eval(`${field} textarea, ${field} input`, (input) => (input as HTMLElement).blur());
	return await page
		.waitForFunction(
			(selector) => document.querySelector(selector)?.classList.contains('has-issues'),
			{ timeout: 5_000 },
			field,
		)
		.then(() => true)
		.catch(() => false);
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

/** Opens one resource/operation (and Task Type) in the panel and compares it with the specs and the description. */
async function checkOperation(page: Page, choices: Record<string, string>, where: string): Promise<void> {
	const labels = (await panelLabels(page)).filter((label) => label !== 'Credential');
	const expectedLabels = visibleLabels(choices);
	const { missing, extra } = sameSet(labels, expectedLabels);
	expect(
		!missing.length && !extra.length,
		`${where}: panel fields ${JSON.stringify(labels)}; the description shows ${JSON.stringify(expectedLabels)} (missing ${missing.join(', ') || '-'}; unexpected ${extra.join(', ') || '-'})`,
	);

	for (const collection of ['additionalFields', 'options']) {
		const property = description.properties.find(
			(candidate) => candidate.name === collection && expectedLabels.includes(candidate.displayName),
		);
		if (!property) continue;
		const { offered, set } = await collectionState(page, property.displayName);
		const expected = collectionEntries(choices, collection).map((entry) => entry.displayName);
		const difference = sameSet([...offered, ...set], expected);
		expect(
			!difference.missing.length && !difference.extra.length,
			`${where}: ${property.displayName} offers ${JSON.stringify(offered)} (set: ${JSON.stringify(set)}); expected ${JSON.stringify(expected)}`,
		);
	}

	const spec = specFor(choices.operation);
	if (spec) {
		const fromSpec = specLabels(spec);
		for (const label of fromSpec.main)
			expect(labels.includes(label), `${where}: the ${spec.operation} spec's field "${label}" is in the panel`);
		const { offered, set } = await collectionState(page, 'Additional Fields');
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
			const flagged = await flaggedWhenLeftEmpty(page, 'prompt');
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
	await page.waitForFunction(() => !location.pathname.startsWith('/signin'), { timeout: UI_TIMEOUT });
}

/** Runs the open node with "Execute step" and checks its output, as JSON and as an image. */
async function runInEditor(page: Page, simulatorUrl: string): Promise<void> {
	const started = Date.now();
	await click(page, testId('node-execute-button'));
	await page.waitForFunction(
		(selector) =>
			document.querySelector(
				`${selector} [data-test-id="node-run-status-success"], ${selector} [data-test-id="ndv-items-count"]`,
			),
		{ timeout: RUN_TIMEOUT },
		OUTPUT_PANEL,
	);
	log('ui', `beta v4.5 creation ran in the editor in ${((Date.now() - started) / 1000).toFixed(1)} s`);

	await click(page, `${OUTPUT_PANEL} ${testId('radio-button-json')}`);
	const json = await page.waitForFunction(
		(selector) => {
			const text = document.querySelector<HTMLElement>(`${selector} [data-test-id="ndv-data-container"]`)?.innerText;
			return text?.includes('"taskid"') ? text : undefined;
		},
		{ timeout: UI_TIMEOUT },
		OUTPUT_PANEL,
	);
	const output = String(await json.jsonValue());
	check(/"status":\s*"completed"/.test(output), `the output JSON says status "completed": ${output.slice(0, 400)}`);
	check(output.includes(`"${simulatorUrl}/files/`), `the output JSON lists the result URL: ${output.slice(0, 400)}`);

	await click(page, `${OUTPUT_PANEL} ${testId('radio-button-binary')}`);
	const fileName = await page.waitForFunction(
		(selector) =>
			/File Name:\s*(\S+)/.exec(
				document.querySelector<HTMLElement>(`${selector} [data-test-id="ndv-binary-data_0"]`)?.innerText ?? '',
			)?.[1],
		{ timeout: UI_TIMEOUT },
		OUTPUT_PANEL,
	);
	const taskId = /"taskid":\s*"([^"]+)"/.exec(output)?.[1];
	const name = String(await fileName.jsonValue());
	check(taskId && name.startsWith(taskId), `the file is named after the task (${name}, task ${taskId})`);
	await click(page, `${OUTPUT_PANEL} ${testId('ndv-view-binary-data')}`);
	const image = await page.waitForFunction(
		(selector) => {
			const img = Array.from(document.querySelectorAll<HTMLImageElement>(`${selector} img`)).find((candidate) =>
				candidate.src.includes('/rest/binary-data'),
			);
			return img && img.complete && img.naturalWidth > 0 ? `${img.naturalWidth}x${img.naturalHeight}` : undefined;
		},
		{ timeout: UI_TIMEOUT },
		OUTPUT_PANEL,
	);
	log('ui', `the output panel shows ${name} as a ${String(await image.jsonValue())} image`);
}

async function main(): Promise<void> {
	const started = Date.now();
	const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`;
	const updateDocs = process.argv.includes('--update-docs');
	rmSync(OUTPUT, { recursive: true, force: true });
	mkdirSync(OUTPUT, { recursive: true });

	const chromium = ensureChromium('ui');
	const tarball = packPackage();
	log('ui', `packed ${path.basename(tarball)}`);
	const install = ensureN8n(VERSION, 'ui');
	const userFolder = mkdtempSync(path.join(tmpdir(), 'mediagen-ui-'));
	let simulator: SimulatorProcess | undefined;
	let server: N8nServer | undefined;
	let session: BrowserSession | undefined;
	let page: Page | undefined;
	const cleanUp = async () => {
		const [browser, n8n, sim] = [session, server, simulator];
		session = server = simulator = undefined;
		await browser?.close();
		await stopProcess(n8n?.child);
		await stopProcess(sim?.child, 2000);
		rmSync(userFolder, { recursive: true, force: true });
		rmSync(path.dirname(tarball), { recursive: true, force: true });
	};
	const onSignal = () => void cleanUp().finally(() => process.exit(130));
	process.once('SIGINT', onSignal);
	process.once('SIGTERM', onSignal);
	try {
		installCommunityPackage(userFolder, tarball);
		simulator = await startSimulator();
		const env = await n8nEnv(install, userFolder);
		n8nCommand(install, env, 'import:credentials', `--input=${writeCredentials(userFolder, simulator.url)}`);
		server = await startN8nServer(install, env, path.join(OUTPUT, 'n8n.log'));
		await setupOwner(server.url);
		log('ui', `n8n ${VERSION} editor at ${server.url}, owner set up (${seconds()})`);

		session = await launchChromium(chromium);
		page = await session.browser.newPage();
		page.setDefaultTimeout(UI_TIMEOUT);
		await loginInBrowser(page, server.url);

		// 1. A new workflow: "Add first step", then search.
		await page.goto(`${server.url}/workflow/new`, { waitUntil: 'domcontentloaded' });
		await click(page, testId('canvas-plus-button'));
		await assertFoundBySearch(page, 'the first-step panel');
		await screenshot(page, '01-search-first-step');

		// 2. Its actions list names every model; add beta v4.5 from it, as a user picks an operation, and run it.
		await searchNodes(page, NODE_NAME);
		await (await byText(page, testId('node-creator-item-name'), NODE_NAME)).click();
		const actions = await page.waitForFunction(
			(count) => {
				const texts = Array.from(document.querySelectorAll<HTMLElement>('[data-test-id="item-iterator-item"]')).map(
					(element) => element.innerText.trim(),
				);
				return texts.length >= count ? texts : undefined;
			},
			{ timeout: UI_TIMEOUT },
			MODELS.length,
		);
		const actionTexts = (await actions.jsonValue()) as string[];
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
		await page.waitForFunction(
			(selector) =>
				!Array.from(document.querySelectorAll<HTMLElement>(`${selector} *`)).some(
					(element) => element.checkVisibility() && element.innerText?.startsWith('Tip:'),
				),
			{ timeout: UI_TIMEOUT },
			PARAMETERS,
		);
		await screenshot(page, '03-node-panel');
		await runInEditor(page, simulator.url);
		await screenshot(page, '04-result-image');
		const record = await simulatorRecord(simulator.url);
		check(
			record.some((entry) => entry.method === 'POST' && entry.path === BETAV45.path),
			`the simulator received ${BETAV45.path}`,
		);

		// 3. Back on the canvas: the subtitle names the operation as the actions list does; search from the plus handle.
		await page.keyboard.press('Escape');
		await page.waitForFunction(
			(selector) => !document.querySelector(selector)?.checkVisibility(),
			{ timeout: UI_TIMEOUT },
			testId('ndv'),
		);
		const nodeSelector = `${testId('canvas-node')}[data-node-name="${BETAV45.action}"]`;
		const nodeText = await (
			await visible(page, nodeSelector)
		).evaluate((element) => (element as HTMLElement).innerText);
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
		await page.waitForFunction(
			(selector) => !document.querySelector(`${selector}`)?.checkVisibility(),
			{ timeout: UI_TIMEOUT },
			`input${testId('node-creator-search-bar')}`,
		);

		// 4. Every resource × operation in the panel of that node.
		await (await visible(page, nodeSelector)).click({ count: 2 });
		await visible(page, PARAMETERS);
		const panels = await checkEveryOperation(page);
		log(
			'ui',
			`compared ${panels} panels (every resource × operation, Task operations per Task Type) with the specs (${seconds()})`,
		);
		check(!mismatches.length, `${mismatches.length} panel mismatches:\n  ${mismatches.join('\n  ')}`);

		if (updateDocs) {
			mkdirSync(DOCS_IMAGES, { recursive: true });
			copyFileSync(path.join(OUTPUT, '03-node-panel.png'), path.join(DOCS_IMAGES, 'node-panel.png'));
			copyFileSync(path.join(OUTPUT, '04-result-image.png'), path.join(DOCS_IMAGES, 'result-image.png'));
			log('ui', 'docs/images/node-panel.png and docs/images/result-image.png updated');
		}
		log('ui', `passed in ${seconds()}`);
	} catch (error) {
		if (page) await screenshot(page, 'failure').catch(() => undefined);
		throw error;
	} finally {
		await cleanUp();
	}
}

runMain('ui', main);
