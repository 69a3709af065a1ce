/**
 * The workflows' saved static data, read and written in the deployment's database while n8n runs, never through
 * n8n: another node's state there (as a polling trigger keeps its cursor) must survive every execution. It is a
 * counter written again while each run is under way: an execution that saved the static data it loaded at its start
 * puts it back to the value before (what n8n does when any node changed static data); one that ran without the
 * saved static data (n8n 2.x queue workers, resumed timed Waits) and saved, removes it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

import type { Deployment } from './deployment';
import { MEDIAGEN } from './learning-workflows';
import { run } from './process';
import { postgresQuery, type Service } from './services';

export const SQLITE_PACKAGE = { name: 'sqlite3', present: () => existsSync('/usr/bin/sqlite3') };

/** The name of the node whose state the suite keeps in a workflow's static data (no such node runs). */
const OTHER_NODE = 'node:Other Trigger';
/** The key the suite keeps in the workflow's global static data beside it. */
const OTHER_GLOBAL = 'otherCursor';
/** Where earlier versions of the MediaGen node kept render times (global static data). */
const MEDIAGEN_KEY = 'mediagenRenderTimes';

export type StaticData = Record<string, unknown>;

/** Reads and writes a workflow's saved static data in a deployment's database (n8n's workflow id). */
export interface StaticDataDb {
	read: (workflowId: string) => StaticData;
	write: (workflowId: string, data: StaticData) => void;
}

const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

function parse(text: string): StaticData {
	const trimmed = text.trim();
	if (!trimmed) return {};
	const value = JSON.parse(trimmed) as unknown;
	// SQLite stores the JSON text; a column saved as a JSON string of JSON is read through.
	if (typeof value === 'string') return parse(value);
	return value && typeof value === 'object' ? (value as StaticData) : {};
}

/** The deployment's database: its SQLite file (regular mode) or its Postgres database (queue mode). */
export function staticDataDb(deployment: Deployment, postgres: Service): StaticDataDb {
	const { database } = deployment;
	const file = path.join(deployment.mainFolder, '.n8n', 'database.sqlite');
	// n8n writes the same SQLite file meanwhile (WAL mode): wait for its lock rather than fail.
	const query = (sql: string) =>
		database
			? postgresQuery({ port: postgres.port, dir: postgres.dir, database }, sql)
			: run('sqlite3', ['-cmd', '.timeout 30000', file, sql], { timeoutMs: 60_000 });
	return {
		read: (id) => parse(query(`select "staticData" from workflow_entity where id = ${quote(id)}`)),
		write: (id, data) =>
			void query(`update workflow_entity set "staticData" = ${quote(JSON.stringify(data))} where id = ${quote(id)}`),
	};
}

/** What a workflow's saved static data held after a run, against what the suite last wrote there. */
export interface StateAfter {
	/** The other node's state: as last written, an older value, or gone. */
	other: 'kept' | 'put back' | 'wiped';
	/** Whether the MediaGen node's own render times are in it (earlier versions wrote them). */
	mediagenWrote: boolean;
}

/**
 * What `data` held after a run: the other node's state as the caller found it, and whether there are render times
 * under the key earlier versions used, in the global data or under any MediaGen node's name.
 */
export const stateOf = (data: StaticData, other: StateAfter['other']): StateAfter => ({
	other,
	mediagenWrote: JSON.stringify(data).includes(`"${MEDIAGEN_KEY}"`) || data[`node:${MEDIAGEN}`] !== undefined,
});

/**
 * Another node's state in one workflow's static data: `advance()` writes its next value (keeping whatever else is
 * there), `check()` reads the database and compares with the last value written.
 */
export function otherNodeState(db: StaticDataDb, workflowId: string) {
	let value = 0;
	return {
		/** Writes the next value of the other node's state (and of a global key beside it). */
		advance(): void {
			value++;
			const data = db.read(workflowId);
			const global = (data.global && typeof data.global === 'object' ? data.global : {}) as StaticData;
			db.write(workflowId, {
				...data,
				[OTHER_NODE]: { cursor: value, at: new Date().toISOString() },
				global: { ...global, [OTHER_GLOBAL]: value },
			});
		},
		check(): StateAfter {
			const data = db.read(workflowId);
			const node = data[OTHER_NODE] as { cursor?: unknown } | undefined;
			const global = data.global as StaticData | undefined;
			const values = [node?.cursor, global?.[OTHER_GLOBAL]];
			const other = values.every((found) => found === value)
				? 'kept'
				: values.some((found) => found === undefined)
					? 'wiped'
					: 'put back';
			return stateOf(data, other);
		},
	};
}

export type OtherNodeState = ReturnType<typeof otherNodeState>;

/** "kept ×10", "kept ×3, wiped ×2", with "MediaGen wrote" when it did. */
export function describeStates(states: StateAfter[]): string {
	const counts = new Map<string, number>();
	for (const state of states) counts.set(state.other, (counts.get(state.other) ?? 0) + 1);
	const wrote = states.filter((state) => state.mediagenWrote).length;
	return [
		...[...counts].map(([other, count]) => `${other} ×${count}`),
		...(wrote ? [`MediaGen wrote ×${wrote}`] : []),
	].join(', ');
}
