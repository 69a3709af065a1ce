/**
 * A tiny RSS 2.0 feed on 127.0.0.1 for the suites' RSS Feed Trigger workflows: items are published (and dated) by
 * the suite while n8n runs or while it is down; every fetch of the feed is recorded.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FeedItem {
	id: string;
	title: string;
	/** When the item was published (its pubDate; RSS dates have whole seconds). */
	date: Date;
}

export interface FeedServer {
	url: string;
	/** Publishes an item dated `date` (default: now, and always a later second than every item before). */
	publish: (title: string, date?: Date) => FeedItem;
	items: () => FeedItem[];
	/** When the feed was fetched (ms since the epoch), oldest first. */
	fetches: () => number[];
	close: () => Promise<void>;
}

const escapeXml = (text: string) =>
	text.replace(/[<>&'"]/g, (char) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', "'": 'apos', '"': 'quot' }[char]};`);

function render(items: FeedItem[]): string {
	const entries = [...items]
		.sort((a, b) => b.date.getTime() - a.date.getTime())
		.map(
			(item) =>
				`<item><title>${escapeXml(item.title)}</title><link>http://feed.test/items/${item.id}</link>` +
				`<guid isPermaLink="false">${item.id}</guid><pubDate>${item.date.toUTCString()}</pubDate>` +
				`<description>${escapeXml(item.title)}</description></item>`,
		)
		.join('');
	return (
		'<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>MediaGen test feed</title>' +
		`<link>http://feed.test/</link><description>Items the suite publishes</description>${entries}</channel></rss>`
	);
}

export async function startFeedServer(): Promise<FeedServer> {
	const items: FeedItem[] = [];
	const fetches: number[] = [];
	const server = http.createServer((request, response) => {
		if (request.url?.startsWith('/feed.xml')) {
			fetches.push(Date.now());
			response.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8' });
			response.end(render(items));
			return;
		}
		response.writeHead(404).end();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/feed.xml`,
		publish: (title, date) => {
			const latest = Math.max(0, ...items.map((item) => item.date.getTime()));
			// Whole seconds, strictly after every item so far unless a date is given: the trigger compares dates.
			const at = date ?? new Date(Math.max(Math.floor(Date.now() / 1000) * 1000, latest + 1000));
			const item = { id: `item-${items.length + 1}`, title, date: new Date(Math.floor(at.getTime() / 1000) * 1000) };
			items.push(item);
			return item;
		},
		items: () => [...items],
		fetches: () => [...fetches],
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
