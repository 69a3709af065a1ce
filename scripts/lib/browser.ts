/**
 * Debian's Chromium driven by puppeteer-core, for the editor test (scripts/ui.ts).
 *
 * The browser is the system's `chromium` package (installed with apt-get when missing, as on a fresh CI
 * machine); puppeteer-core downloads nothing. Every run gets a fresh profile and the flags that keep a
 * headless Chromium off the network: the only pages it opens are n8n on 127.0.0.1.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import puppeteer, { type Browser } from 'puppeteer-core';

import { removeNow, removeOnExit, track } from './process';
import { ensureDebianPackages } from './services';

function installedChromium(): string | undefined {
	const fromEnv = process.env.CHROMIUM_PATH;
	if (fromEnv && !existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} does not exist`);
	return fromEnv || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((candidate) => existsSync(candidate));
}

/** The Chromium binary; installs Debian's `chromium` package first when there is none. */
export function ensureChromium(scope: string): string {
	ensureDebianPackages(scope, [{ name: 'chromium', present: () => installedChromium() !== undefined }]);
	return installedChromium()!;
}

export interface BrowserSession {
	browser: Browser;
	close(): Promise<void>;
}

/**
 * Starts headless Chromium with a throw-away profile; `close` always ends the process and removes the profile,
 * and so does the script's exit (Ctrl-C included) if nobody called it.
 */
export async function launchChromium(executablePath: string): Promise<BrowserSession> {
	const profile = mkdtempSync(path.join(tmpdir(), 'mediagen-chromium-'));
	removeOnExit(profile);
	const browser = await puppeteer.launch({
		executablePath,
		headless: true,
		defaultViewport: { width: 1440, height: 900 },
		protocolTimeout: 180_000,
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
			'--disable-dev-shm-usage',
			`--user-data-dir=${profile}`,
		],
	});
	const child = browser.process();
	if (child) track(child);
	return {
		browser,
		async close() {
			// A close that fails or hangs still ends here: the process is killed below.
			const closed = browser.close().catch(() => undefined);
			await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 10_000))]);
			if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
			removeNow(profile);
		},
	};
}
