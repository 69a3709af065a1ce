/**
 * `npm run test:e2e`: the packed package inside the real n8n application, installed the way n8n installs
 * community packages, executing the example workflows against the API simulator.
 *
 * n8n itself is installed once per version into a cache folder outside this package
 * (MEDIAGEN_E2E_CACHE, default ~/.cache/n8n-nodes-mediagen-e2e). MEDIAGEN_E2E_VERSIONS picks the n8n
 * versions (default "2.41.1,1.123.81").
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';

const root = path.join(__dirname, '..');
const cache = process.env.MEDIAGEN_E2E_CACHE ?? path.join(homedir(), '.cache', 'n8n-nodes-mediagen-e2e');
const NODE_TYPE = 'n8n-nodes-mediagen.mediaGen';
const SIM_KEY = 'e2e-sim-key-7d2a';

interface Target {
	n8n: string;
	/** npm package of the Node.js binary n8n needs; unset runs on this machine's Node. */
	node?: string;
	overrides: Record<string, string>;
	env: Record<string, string>;
}

const TARGETS: Record<string, Target> = {
	'2.41.1': { n8n: '2.41.1', node: '24.21.0', overrides: { linkedom: '0.18.13' }, env: {} },
	'1.123.81': { n8n: '1.123.81', overrides: { xlsx: '0.18.5' }, env: { N8N_EXPRESSION_ENGINE: 'legacy' } },
};

function log(message: string): void {
	console.log(`[e2e] ${message}`);
}

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
	return execFileSync(command, args, { cwd: options.cwd ?? root, env: options.env ?? process.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
}

/** Installs n8n (and its Node.js) into the cache once; later runs reuse it. */
function installN8n(target: Target): { dir: string; nodeBin: string } {
	const dir = path.join(cache, `n8n-${target.n8n}`);
	const nodeBin = target.node ? path.join(dir, 'node_modules', 'node', 'bin', 'node') : process.execPath;
	if (existsSync(path.join(dir, '.ready'))) return { dir, nodeBin };
	log(`installing n8n ${target.n8n} into ${dir} (first run only, a few minutes)`);
	mkdirSync(dir, { recursive: true });
	const dependencies: Record<string, string> = { n8n: target.n8n, ...(target.node ? { node: target.node } : {}) };
	writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'n8n-e2e-runtime', private: true, dependencies, overrides: target.overrides }, null, 2));
	// Scripts off: some optional native modules try to download binaries, which fails offline.
	run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir });
	const env = { ...process.env };
	if (target.node) {
		// The `node` package fetches its platform binary (from the same registry) in a preinstall script.
		run(process.execPath, ['installArchSpecificPackage'], { cwd: path.join(dir, 'node_modules', 'node') });
		const nodePackage = path.join(dir, 'node_modules', 'node', 'node_modules', `node-${process.platform}-${process.arch}`);
		env.PATH = `${path.dirname(nodeBin)}${path.delimiter}${env.PATH}`;
		env.npm_config_nodedir = nodePackage; // build sqlite3 against the Node that will load it
	}
	run('npm', ['rebuild', 'sqlite3'], { cwd: dir, env });
	writeFileSync(path.join(dir, '.ready'), new Date().toISOString());
	return { dir, nodeBin };
}

function pack(): string {
	run('npm', ['run', '-s', 'build']);
	const destination = mkdtempSync(path.join(tmpdir(), 'mediagen-pack-'));
	run('npm', ['pack', '--pack-destination', destination]);
	const tarball = readdirSync(destination).find((file) => file.endsWith('.tgz'));
	if (!tarball) throw new Error('npm pack produced no tarball');
	return path.join(destination, tarball);
}

/** As n8n installs a community package: into <user folder>/.n8n/nodes, without dev or peer dependencies. */
function installPackage(userFolder: string, tarball: string): void {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	mkdirSync(nodesDir, { recursive: true });
	writeFileSync(path.join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true }));
	run('npm', ['install', tarball, '--omit=dev', '--omit=peer', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: nodesDir });
	const installed = readdirSync(path.join(nodesDir, 'node_modules'));
	if (!installed.includes('n8n-nodes-mediagen')) throw new Error(`package not installed: ${installed.join(', ')}`);
	if (installed.includes('n8n-workflow')) throw new Error('a peer dependency was installed next to the package');
}

async function freePort(): Promise<number> {
	return await new Promise((resolve) => {
		const server = createServer();
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

async function startSimulator(): Promise<{ child: ChildProcess; url: string }> {
	const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join(root, 'test', 'simulator', 'cli.ts')], {
		cwd: root,
		env: { ...process.env, PORT: '0', TASK_SECONDS: '1', SIM_KEY, MAX_RENDERED_SIDE: '512' },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const url = await new Promise<string>((resolve, reject) => {
		let text = '';
		child.stdout!.on('data', (chunk: Buffer) => {
			text += chunk.toString();
			const match = /listening on (http:\/\/\S+)/.exec(text);
			if (match) resolve(match[1]);
		});
		child.on('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
	});
	return { child, url };
}

interface Item {
	json: Record<string, unknown>;
	binary?: Record<string, { mimeType: string; fileName: string; id?: string; data?: string }>;
}

function check(condition: unknown, message: string): asserts condition {
	if (!condition) throw new Error(`assertion failed: ${message}`);
}

function verifyFile(userFolder: string, binary: NonNullable<Item['binary']>[string], json: Record<string, unknown>): string {
	// Each version's default binary mode: files under the user folder (2.x) or base64 in the output (1.x).
	let bytes: Buffer;
	let file = binary.fileName;
	if (binary.id) {
		const relative = binary.id.split(':')[1];
		const candidates = ['storage', 'binaryData'].map((folder) => path.join(userFolder, '.n8n', folder, relative));
		file = candidates.find((candidate) => existsSync(candidate)) ?? candidates[0];
		bytes = readFileSync(file);
	} else {
		check(binary.data, `binary ${binary.fileName} has data`);
		bytes = Buffer.from(binary.data, 'base64');
	}
	if (binary.mimeType === 'image/png') {
		check(bytes.subarray(1, 4).toString('ascii') === 'PNG', `${file} is a PNG`);
		const [width, height] = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
		if (typeof json.width === 'number' && typeof json.height === 'number') {
			// The simulator renders the delivered size scaled to fit MAX_RENDERED_SIDE (512).
			const scale = Math.min(1, 512 / Math.max(json.width, json.height));
			const expected = `${Math.round(json.width * scale)}x${Math.round(json.height * scale)}`;
			check(`${width}x${height}` === expected, `${binary.fileName} is ${width}x${height}, expected ${expected}`);
		}
		return `${binary.fileName} PNG ${width}x${height}`;
	}
	check(binary.mimeType === 'video/mp4' && bytes.subarray(4, 8).toString('ascii') === 'ftyp', `${file} is an MP4`);
	return `${binary.fileName} MP4 ${bytes.length} bytes`;
}

async function runTarget(target: Target, tarball: string): Promise<void> {
	const { dir, nodeBin } = installN8n(target);
	const userFolder = mkdtempSync(path.join(tmpdir(), `mediagen-n8n-${target.n8n}-`));
	const simulator = await startSimulator();
	try {
		installPackage(userFolder, tarball);
		const env: NodeJS.ProcessEnv = {
			...process.env,
			...target.env,
			PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH}`,
			N8N_USER_FOLDER: userFolder,
			N8N_ENCRYPTION_KEY: 'mediagen-e2e-encryption-key',
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_PYTHON_ENABLED: 'false',
			N8N_RUNNERS_BROKER_PORT: String(await freePort()),
			DB_SQLITE_POOL_SIZE: '1',
		};
		const n8n = (...args: string[]) => run(nodeBin, [path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'), ...args], { env });
		log(`n8n version ${n8n('--version').trim()} on Node ${run(nodeBin, ['--version']).trim()}`);

		const credentialsFile = path.join(userFolder, 'credentials.json');
		writeFileSync(credentialsFile, JSON.stringify([{ id: 'mediagen-cred', name: 'MediaGen account', type: 'mediaGenApi', data: { apiKey: SIM_KEY, baseUrl: simulator.url } }]));
		n8n('import:credentials', `--input=${credentialsFile}`);
		n8n('import:workflow', '--separate', `--input=${path.join(root, 'examples')}`);

		for (const file of readdirSync(path.join(root, 'examples')).filter((name) => name.endsWith('.json')).sort()) {
			const workflow = JSON.parse(readFileSync(path.join(root, 'examples', file), 'utf8')) as { id: string; name: string; nodes: Array<{ name: string; type: string; parameters: Record<string, unknown> }> };
			const raw = n8n('execute', `--id=${workflow.id}`, '--rawOutput');
			const lines = raw.split('\n');
			const start = lines.findIndex((line) => line === '{');
			check(start >= 0, `${file}: execute printed JSON`);
			const result = JSON.parse(lines.slice(start).join('\n')) as { data: { resultData: { error?: { message: string }; runData: Record<string, Array<{ data?: { main: Item[][] }; error?: { message: string } }>> } } };
			const { runData, error } = result.data.resultData;
			check(!error, `${file}: workflow error ${error?.message}`);
			for (const node of workflow.nodes.filter((candidate) => candidate.type === NODE_TYPE)) {
				const task = runData[node.name]?.[0];
				check(task && !task.error, `${file}: node "${node.name}" ran without error (${task?.error?.message})`);
				const items = task.data!.main[0];
				check(items.length > 0, `${file}: node "${node.name}" produced items`);
				const details: string[] = [];
				for (const item of items) {
					check(typeof item.json.taskid === 'string' || Array.isArray(item.json.taskids), `${file}: "${node.name}" output keeps the task id`);
					// One output shape (README, "Output"): status completed/pending/failed, urls, taskType; Delete says "deleted".
					if (node.parameters.operation === 'delete') {
						check(item.json.status === 'deleted', `${file}: "${node.name}" status is "deleted"`);
					} else {
						check(['completed', 'pending'].includes(String(item.json.status)) && Array.isArray(item.json.urls), `${file}: "${node.name}" has status and urls`);
						check(item.json.taskType === 'image' || item.json.taskType === 'video', `${file}: "${node.name}" has taskType`);
					}
					for (const binary of Object.values(item.binary ?? {})) {
						check(binary.fileName?.startsWith(`${String(item.json.taskid)}-`), `${file}: "${node.name}" file ${binary.fileName} is named after its task`);
					}
					const waited = node.parameters.operation !== 'get' && node.parameters.operation !== 'delete' && node.parameters.waitForCompletion !== false;
					if (waited) {
						check(item.json.status === 'completed', `${file}: "${node.name}" task completed`);
						check(Array.isArray(item.json.urls) && (item.json.urls as string[]).every((url) => url.startsWith(simulator.url)), `${file}: "${node.name}" result URLs`);
					}
					for (const binary of Object.values(item.binary ?? {})) details.push(verifyFile(userFolder, binary, item.json));
				}
				const ids = items.map((item) => String(item.json.taskid ?? (item.json.taskids as string[]).join(','))).join(', ');
				log(`${file}: node type ${NODE_TYPE} executed "${node.name}" (${String(node.parameters.resource)}/${String(node.parameters.operation)}) → task ${ids}${details.length ? `; files: ${details.join('; ')}` : ''}`);
			}
		}

		const record = JSON.parse(
			await (await fetch(`${simulator.url}/__sim/record`)).text(),
		) as Array<{ method: string; path: string; headers: Record<string, string> }>;
		const downloads = record.filter((entry) => entry.method === 'GET' && entry.path.startsWith('/files/'));
		check(downloads.length > 0, 'result files were downloaded');
		check(downloads.every((entry) => entry.headers.authorization === undefined), 'no Authorization header on result downloads');
		check(record.filter((entry) => entry.method === 'POST').every((entry) => entry.headers.authorization === SIM_KEY), 'every API call carried the raw key');
		log(`n8n ${target.n8n}: all example workflows passed (${record.length} requests; ${downloads.length} downloads without Authorization)`);
	} finally {
		simulator.child.kill();
		rmSync(userFolder, { recursive: true, force: true });
	}
}

async function main(): Promise<void> {
	const versions = (process.env.MEDIAGEN_E2E_VERSIONS ?? '2.41.1,1.123.81').split(',').map((version) => version.trim()).filter(Boolean);
	const tarball = pack();
	log(`packed ${path.basename(tarball)}`);
	for (const version of versions) {
		const target = TARGETS[version];
		if (!target) throw new Error(`no recipe for n8n ${version}; known: ${Object.keys(TARGETS).join(', ')}`);
		await runTarget(target, tarball);
	}
	log(`passed on n8n ${versions.join(' and ')}`);
}

main().catch((error: Error) => {
	console.error(`[e2e] FAILED: ${error.message}`);
	const stderr = (error as { stderr?: string }).stderr;
	if (stderr) console.error(stderr.slice(-4000));
	process.exit(1);
});
