/**
 * The house's rules (CONTRIBUTING.md, "Rules the code keeps"): imports between the node's folders run one way, the
 * bottom layers import nothing above them, and no node file grows past 500 lines.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const NODE = path.join(__dirname, '..', '..', 'nodes', 'MediaGen');

function sources(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const full = path.join(dir, name);
		if (statSync(full).isDirectory()) return sources(full);
		return name.endsWith('.ts') ? [full] : [];
	});
}

/** The top folder of the node a file is in ("actions", "waiting", …; the node file itself is its own). */
function folderOf(file: string): string {
	return path.relative(NODE, file).split(path.sep)[0];
}

/** Folder → the other folders its files import from. */
function folderImports(): Map<string, Set<string>> {
	const edges = new Map<string, Set<string>>();
	for (const file of sources(NODE)) {
		const from = folderOf(file);
		const targets = edges.get(from) ?? new Set<string>();
		for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
			const to = folderOf(path.resolve(path.dirname(file), specifier));
			if (to !== from) targets.add(to);
		}
		edges.set(from, targets);
	}
	return edges;
}

describe("the node's folders", () => {
	const edges = folderImports();

	it('import each other one way only: no cycle between folders', () => {
		const cycles: string[] = [];
		const visit = (folder: string, trail: string[]) => {
			for (const next of edges.get(folder) ?? []) {
				if (trail.includes(next)) cycles.push([...trail.slice(trail.indexOf(next)), next].join(' → '));
				else visit(next, [...trail, next]);
			}
		};
		for (const folder of edges.keys()) visit(folder, [folder]);
		expect(cycles).toEqual([]);
	});

	it('helpers/, models/ and media/ import no other folder; transport/ only helpers/ and media/; learning/ only models/ and helpers/', () => {
		expect([...(edges.get('helpers') ?? [])]).toEqual([]);
		expect([...(edges.get('models') ?? [])]).toEqual([]);
		expect([...(edges.get('media') ?? [])]).toEqual([]);
		expect([...(edges.get('transport') ?? [])].sort()).toEqual(['helpers', 'media']);
		expect([...(edges.get('learning') ?? [])].sort()).toEqual(['helpers', 'models']);
	});

	it('no file is over 500 lines', () => {
		const long = sources(NODE)
			.map((file) => [path.relative(NODE, file), readFileSync(file, 'utf8').split('\n').length] as const)
			.filter(([, lines]) => lines > 500);
		expect(long).toEqual([]);
	});
});
