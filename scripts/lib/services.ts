/**
 * System services for the queue-mode suite: the Debian packages it needs (installed with apt-get when missing),
 * and throw-away PostgreSQL and Redis servers, each on a free port of 127.0.0.1 in a temporary folder, run as
 * their own system user when we are root. The packages' own system services are never used.
 */
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
	errorSummary,
	freePort,
	removeNow,
	removeOnExit,
	run,
	spawnLogged,
	stopProcess,
	type SystemUser,
} from './process';
import { log, since } from './report';
import { waitFor } from './wait';

/** A system account (e.g. postgres, redis), or undefined when it does not exist. */
export function systemUser(name: string): SystemUser | undefined {
	try {
		const [, , uid, gid] = run('getent', ['passwd', name]).trim().split(':');
		return { name, uid: Number(uid), gid: Number(gid) };
	} catch {
		return undefined;
	}
}

/** Directory of the newest installed PostgreSQL server binaries (Debian: /usr/lib/postgresql/<major>/bin). */
function postgresBinDir(): string | undefined {
	const base = '/usr/lib/postgresql';
	if (!existsSync(base)) return undefined;
	const majors = readdirSync(base).filter((major) => existsSync(path.join(base, major, 'bin', 'postgres')));
	majors.sort((a, b) => Number(b) - Number(a));
	return majors.length ? path.join(base, majors[0], 'bin') : undefined;
}

function redisServerBin(): string | undefined {
	return ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((candidate) => existsSync(candidate));
}

/** Installs the Debian packages a suite needs when they are missing (CI machines start empty). */
export function ensureDebianPackages(scope: string, packages: Array<{ name: string; present: () => boolean }>): void {
	const missing = packages.filter((entry) => !entry.present()).map((entry) => entry.name);
	if (!missing.length) return;
	const started = Date.now();
	// Root installs directly; another user (e.g. a CI runner) through passwordless sudo, or gets told what to run.
	const asRoot = process.getuid?.() === 0;
	const apt = (args: string[], timeoutMs: number) => {
		const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
		if (asRoot) return run('apt-get', args, { env, timeoutMs });
		try {
			return run('sudo', ['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args], { env, timeoutMs });
		} catch (error) {
			throw new Error(
				`missing system packages: ${missing.join(', ')}; install them (sudo apt-get install -y ${missing.join(' ')}): ${errorSummary(error)}`,
			);
		}
	};
	log(scope, `installing ${missing.join(', ')} with apt-get`);
	apt(['update', '-qq'], 900_000);
	apt(['install', '-y', '-qq', '--no-install-recommends', ...missing], 1_800_000);
	const still = packages.filter((entry) => !entry.present()).map((entry) => entry.name);
	if (still.length) throw new Error(`apt-get did not provide ${still.join(', ')}`);
	log(scope, `installed ${missing.join(', ')} in ${since(started)}`);
}

export const POSTGRES_PACKAGE = { name: 'postgresql', present: () => postgresBinDir() !== undefined };
export const REDIS_PACKAGE = { name: 'redis-server', present: () => redisServerBin() !== undefined };

const POSTGRES_ENV = { ...process.env, LC_ALL: 'C' };

export interface Service {
	port: number;
	/** Temporary folder holding the service's data and log. */
	dir: string;
	stop(): Promise<void>;
}

/** A temporary folder owned by `user`, removed on exit even if the script forgets. */
function serviceDir(prefix: string, user: SystemUser | undefined): string {
	const dir = mkdtempSync(path.join(tmpdir(), prefix));
	if (user) chownSync(dir, user.uid, user.gid);
	removeOnExit(dir);
	return dir;
}

/**
 * Runs a service in its folder (as `user` when given, its output in <dir>/<name>.log) and waits until `ready`
 * says yes, failing with the log's tail when it exits first or time runs out. Its stop() sends `stopSignal`
 * (SIGKILL after 20 s), then removes the folder.
 */
async function launch(
	name: string,
	command: { bin: string; args: string[]; dir: string; port: number; user?: SystemUser; env?: NodeJS.ProcessEnv },
	stopSignal: NodeJS.Signals,
	timeoutMs: number,
	ready: () => Promise<boolean>,
): Promise<Service> {
	const { bin, args, dir, port, user } = command;
	const logFile = path.join(dir, `${name}.log`);
	const ids = user ? { uid: user.uid, gid: user.gid } : {};
	const child = spawnLogged(bin, args, { cwd: dir, env: command.env ?? process.env, ...ids }, logFile);
	const tail = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : '(no log yet)');
	await waitFor(
		async (see) => {
			if (await ready()) return true;
			if (child.exitCode !== null || child.signalCode !== null)
				throw new Error(`${name} did not start (exited: ${child.exitCode ?? child.signalCode}): ${tail()}`);
			see(`not answering yet; its log ends: ${tail()}`);
			return false;
		},
		{ deadline: timeoutMs, describe: `${name} to start`, interval: 300 },
	);
	const stop = async () => {
		await stopProcess(child, 20_000, stopSignal);
		removeNow(dir);
	};
	return { port, dir, stop };
}

/**
 * A throw-away PostgreSQL server: `initdb` into a temporary folder and `postgres` on a free port of 127.0.0.1,
 * both as the `postgres` system user (the server refuses to run as root), trust authentication, durability off
 * (test data), its database user `postgres`. Stop with SIGINT (fast shutdown).
 */
export async function startPostgres(scope: string): Promise<Service> {
	const bin = postgresBinDir();
	if (!bin) throw new Error('PostgreSQL is not installed (ensureDebianPackages with POSTGRES_PACKAGE)');
	const isRoot = process.getuid?.() === 0;
	const user = isRoot ? systemUser('postgres') : undefined;
	if (isRoot && !user) throw new Error('running as root, but there is no postgres system user to run PostgreSQL');
	const dir = serviceDir('mediagen-postgres-', user);
	const data = path.join(dir, 'data');
	run(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'], {
		cwd: dir,
		env: POSTGRES_ENV,
		user,
		timeoutMs: 300_000,
	});
	const port = await freePort();
	const settings = [
		'listen_addresses=127.0.0.1',
		`unix_socket_directories=${dir}`,
		'fsync=off',
		'synchronous_commit=off',
		'full_page_writes=off',
		'max_connections=200',
	];
	const args = ['-D', data, '-p', String(port), ...settings.flatMap((setting) => ['-c', setting])];
	const command = { bin: path.join(bin, 'postgres'), args, dir, port, user, env: POSTGRES_ENV };
	const service = await launch('postgres', command, 'SIGINT', 120_000, async () => {
		try {
			postgresQuery({ port, dir }, 'select 1');
			return true;
		} catch {
			return false;
		}
	});
	log(
		scope,
		`postgres (${path.basename(path.dirname(bin))}) on 127.0.0.1:${port} as user ${user?.name ?? 'current'}, data in ${data}`,
	);
	return service;
}

/** Runs SQL against a server from startPostgres (in `database`, if given) and returns psql's unaligned output. */
export function postgresQuery(service: { port: number; dir: string; database?: string }, sql: string): string {
	const server = ['-h', '127.0.0.1', '-p', String(service.port), '-U', 'postgres'];
	const database = service.database ? ['-d', service.database] : [];
	return run(path.join(postgresBinDir()!, 'psql'), [...server, ...database, '-v', 'ON_ERROR_STOP=1', '-qAtc', sql], {
		cwd: service.dir,
		env: POSTGRES_ENV,
		timeoutMs: 60_000,
	});
}

/** Sends one inline Redis command and returns the first reply line. */
async function redisCommand(port: number, command: string): Promise<string> {
	return await new Promise((resolve, reject) => {
		const socket = connect(port, '127.0.0.1');
		socket.setTimeout(3000, () => socket.destroy(new Error('redis timeout')));
		socket.on('error', reject);
		socket.on('connect', () => socket.write(`${command}\r\n`));
		socket.on('data', (chunk) => {
			resolve(chunk.toString().split('\r\n')[0]);
			socket.end();
		});
	});
}

/** A throw-away Redis on a free port of 127.0.0.1, without persistence, as the `redis` user when it exists. */
export async function startRedis(scope: string): Promise<Service> {
	const bin = redisServerBin();
	if (!bin) throw new Error('redis-server is not installed (ensureDebianPackages with REDIS_PACKAGE)');
	const user = process.getuid?.() === 0 ? systemUser('redis') : undefined;
	const dir = serviceDir('mediagen-redis-', user);
	const port = await freePort();
	const settings = { port: String(port), bind: '127.0.0.1', dir, save: '', appendonly: 'no', daemonize: 'no' };
	const args = Object.entries(settings).flatMap(([name, value]) => [`--${name}`, value]);
	const ready = async () => (await redisCommand(port, 'PING').catch(() => '')) === '+PONG';
	const service = await launch('redis', { bin, args, dir, port, user }, 'SIGTERM', 60_000, ready);
	log(scope, `redis on 127.0.0.1:${port} as user ${user?.name ?? 'current'}`);
	return service;
}
