/**
 * Task → Delete's promises, checked against the world's record of what its delete handler deleted (world.ts):
 *   12. a task reported deleted was deleted or already gone, by what the API said: every id an output or error item
 *       lists in `deleted` or `alreadyGone` is gone from the server at the end; when the API refuses ids it does not
 *       know, every id in `deleted` was deleted by a request of the run; an id is in `deleted` only if an answer to a
 *       request that held it was code 1000 with a status text that reports success, and in `alreadyGone` only if one
 *       was a refusal saying that the tasks are not known (not "Unknown error", "user not found", 9000, or a text
 *       that cannot be read);
 *   13. a failure is never reported as deleted: an item output with `status: "deleted"` accounts for every id its
 *       input items gave in `deleted` or `alreadyGone` (a failure text, a refusal or an answer that never came
 *       leaves the item an error instead).
 */
import type { IDataObject } from 'n8n-workflow';

import type { Observation } from '../invariants';
import { pairedItems } from './items';

/** The fields of a delete's item: on the error output they are inside `error` (output/items.ts, errorItem). */
function fieldsOf(json: IDataObject): IDataObject {
	return typeof json.error === 'object' && json.error !== null ? (json.error as IDataObject) : json;
}

const list = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

export function checkDeletes(observation: Observation, inputIds: string[][]): Array<[number, string]> {
	const { world, result } = observation;
	if (!result) return [];
	const violations: Array<[number, string]> = [];
	for (const item of [...result.output, ...result.errorOutput]) {
		const fields = fieldsOf(item.json);
		const reported = [...list(fields.deleted), ...list(fields.alreadyGone)];
		const kept = reported.filter((id) => !world.gone(id));
		if (kept.length)
			violations.push([
				12,
				`${kept.length} id(s) reported deleted or already gone are still on the server: ${kept.slice(0, 5).join(', ')}`,
			]);
		// An API that answers success over ids it does not know leaves the node no way to tell them apart.
		const earlier = list(fields.deleted).filter((id) => !world.deletedInRun(id));
		if (earlier.length && observation.schedule.deletes?.unknownIds !== 'ignore')
			violations.push([
				12,
				`${earlier.length} id(s) reported deleted were not deleted by this run: ${earlier.slice(0, 5).join(', ')}`,
			]);
		// What the API said of each id (world.ts records it): the node's word for an id is the API's.
		const said = (id: string, reading: string) => world.deleteReadings.get(id)?.has(reading as never) === true;
		const unsaid = list(fields.deleted).filter((id) => !said(id, 'success'));
		if (unsaid.length)
			violations.push([
				12,
				`${unsaid.length} id(s) reported deleted got no answer whose status text reports success: ${unsaid.slice(0, 5).join(', ')} (${unsaid
					.slice(0, 3)
					.map((id) => [...(world.deleteReadings.get(id) ?? [])].join('/') || 'no answer')
					.join('; ')})`,
			]);
		const unknownUnsaid = list(fields.alreadyGone).filter((id) => !said(id, 'not-known'));
		if (unknownUnsaid.length)
			violations.push([
				12,
				`${unknownUnsaid.length} id(s) reported already gone got no refusal saying the tasks are not known: ${unknownUnsaid.slice(0, 5).join(', ')} (${unknownUnsaid
					.slice(0, 3)
					.map((id) => [...(world.deleteReadings.get(id) ?? [])].join('/') || 'no answer')
					.join('; ')})`,
			]);
		if (fields.status !== 'deleted' || 'error' in item.json) continue;
		const accounted = new Set(reported);
		const given = pairedItems(item).flatMap((index) => inputIds[index] ?? []);
		const missing = given.filter((id) => !accounted.has(id));
		if (missing.length)
			violations.push([
				13,
				`an item output as deleted (items ${pairedItems(item).join(', ')}) does not account for ${missing.length} of its ids: ${missing.slice(0, 5).join(', ')}`,
			]);
	}
	return violations;
}
