/**
 * Invariants about bodies (generators/files.ts, generators/answers.ts), each its own check, called from
 * checkInvariants (../invariants.ts):
 *   8. every error the node writes is bounded: a message within MAX_MESSAGE characters, a description within
 *      MAX_DESCRIPTION plus the list of the run's tasks, however large the answers and pages it quotes;
 *   9. a stored file is whole and is what its name and MIME type say: the body the host served for its URL was not
 *      made broken (cut, a near miss, a size that lies, bytes after ISO boxes or EBML elements), and the stored
 *      file has that body's type and extension, as it was made (a real file of the fixtures, a PNG, an MP4, a binary
 *      of no known format);
 *  10. no file is refused as "not an image or a video" when all the host ever sent for its URL was a file, nor as
 *      "not a whole … file" when it sent the whole file and nothing after it.
 */
import type { IBinaryData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Observation } from '../invariants';
import type { Schedule } from '../schedule';

/** Longest error message: a URL (clipped to 120), a quote (200), the task and the item. */
const MAX_MESSAGE = 1000;
/** Longest error description, besides the run's task list ("T5-2-3x (item 2), " per task) and the advice. */
const MAX_DESCRIPTION = 2000;
const PER_LISTED_TASK = 40;

/** The URL a stored binary came from: `urls[n]` for property `data_n`, or the item's own `url` when split. */
export function storedUrl(schedule: Schedule, json: IDataObject, property: string): string {
	const urls = Array.isArray(json.urls) ? (json.urls as string[]) : [];
	if (schedule.split) return String(json.url);
	return urls[property === 'data' ? 0 : Number(/_(\d+)$/.exec(property)?.[1])];
}

function items(observation: Observation): INodeExecutionData[] {
	return [...(observation.result?.output ?? []), ...(observation.result?.errorOutput ?? [])];
}

/** Every error the run wrote: [message, description] of each error item, tool answer and the stopping error. */
function writtenErrors(observation: Observation): Array<[string, string]> {
	const errors: Array<[string, string]> = [];
	const text = (value: unknown) => (typeof value === 'string' ? value : '');
	for (const { json } of items(observation)) {
		const nested = json.error && typeof json.error === 'object' ? (json.error as IDataObject) : undefined;
		if (nested) errors.push([text(nested.message), text(nested.description)]);
		else if (json.error !== undefined) errors.push([text(json.error), text(json.errorDescription)]);
		if (observation.schedule.asTool && json.status === 'failed') errors.push([text(json.message), text(json.hint)]);
	}
	return errors;
}

/** The stopping error: its message names every task the run created (so that none is lost, Stop included). */
function stoppingError(observation: Observation): [string, string] | undefined {
	const stopping = observation.result?.error as { message?: string; description?: string } | undefined;
	if (!stopping) return undefined;
	const text = (value: unknown) => (typeof value === 'string' ? value : '');
	return [text(stopping.message), text(stopping.description)];
}

/** 8. Errors are bounded, whatever the answers and pages they quote. */
export function checkErrorLengths(observation: Observation, fail: (text: string) => void): void {
	const tasks = observation.world.tasks.size + observation.schedule.items;
	const maxDescription = MAX_DESCRIPTION + PER_LISTED_TASK * tasks;
	const stopping = stoppingError(observation);
	const errors = writtenErrors(observation).map(([message, description]) => ({
		message,
		description,
		most: MAX_MESSAGE,
	}));
	if (stopping)
		errors.push({ message: stopping[0], description: stopping[1], most: MAX_MESSAGE + PER_LISTED_TASK * tasks });
	for (const { message, description, most } of errors) {
		if (message.length > most) {
			fail(`an error message is ${message.length} characters long (at most ${most}): ${message.slice(0, 160)}…`);
		}
		if (description.length > maxDescription) {
			fail(
				`an error description is ${description.length} characters long (at most ${maxDescription}): ${description.slice(0, 160)}…`,
			);
		}
	}
}

/** 9. A stored file is whole, and its MIME type and extension are those of the body its URL served. */
export function checkStoredFileKinds(observation: Observation, fail: (text: string) => void): void {
	for (const { json, binary } of items(observation)) {
		for (const [property, stored] of Object.entries(binary ?? {}) as Array<[string, IBinaryData]>) {
			const url = storedUrl(observation.schedule, json, property);
			const body = observation.world.fileBodies.get(url);
			if (!body) continue; // invariant 5 reports a file no URL served
			const extension = /\.([^.]+)$/.exec(stored.fileName ?? '')?.[1];
			if (!body.file) {
				fail(`${stored.fileName} was stored for ${url}, whose body is ${body.what}: not a file`);
			} else if (body.notWhole) {
				fail(`${stored.fileName} was stored for ${url}, whose body is ${body.what}: not a whole file`);
			} else if (stored.mimeType !== body.file.mimeType || extension !== body.file.extension) {
				fail(
					`${stored.fileName} (${stored.mimeType}) was stored for ${url}, whose body is ${body.what}: ${body.file.mimeType}, .${body.file.extension}`,
				);
			}
		}
	}
}

/** 10. No file is refused when all the host sent for its URL was a file, nor called not whole when it was whole. */
export function checkNoFileRefused(observation: Observation, fail: (text: string) => void): void {
	for (const [message] of writtenErrors(observation)) {
		const cut = /^The result file (\S+) is not a whole /.exec(message)?.[1];
		const served = cut ? observation.world.fileBodies.get(cut) : undefined;
		if (cut && !served?.notWhole && !observation.world.servedMore.has(cut)) {
			fail(
				`the file ${cut} was refused as not whole, but its body is ${served?.what ?? 'unknown'}: ${message.slice(0, 300)}…`,
			);
		}
		const url = /^The result file (\S+) is not an image or a video/.exec(message)?.[1];
		if (!url || observation.world.servedNotAFile.has(url)) continue;
		const body = observation.world.fileBodies.get(url);
		fail(
			`the file ${url} was refused as not an image or a video, but its body is ${body?.what ?? 'unknown'}: ${message.slice(0, 300)}…`,
		);
	}
}
