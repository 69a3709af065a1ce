/**
 * Generator "files": what the file host serves as a result file's body. In a third of the schedules (drawn from the
 * stream 'files'), every URL's body is drawn from a corpus (from the stream 'files', <file name>, so that a URL gets
 * the same body on every attempt): a real file made by real tools (../../fixtures/media), whole, cut short after
 * its signature, padded, or broken as near misses are (../../fixtures/media/broken.ts: its first 64 bytes then a
 * page or a message, a size field that claims more than the file holds); text of every kind in every encoding,
 * with and without a byte order mark; a 300 KB page; zero bytes; a binary no table knows; each under any
 * Content-Type (or none). The other schedules serve the classic bodies (a PNG, an MP4). Each body says what a stored
 * copy must be, or that it must not be stored, known from how it was made, never from the node's table: the
 * invariants check the node against it.
 */
import { makePng } from '../../simulator/png';
import { fixtureBytes, MEDIA_FIXTURES } from '../../fixtures/media';
import {
	cutFile,
	ENDS_ITSELF,
	lyingSize,
	magicThenText,
	wholeCuts,
	type BrokenFile,
} from '../../fixtures/media/broken';
import { encodeText, HOST_TEXTS, TEXT_ENCODINGS, TYPE_HEADERS } from '../../fixtures/texts';
import { Random } from '../random';
import type { Schedule } from '../schedule';

export interface FileBody {
	bytes: Buffer;
	/** The Content-Type the host sends; undefined: none. */
	type: string | undefined;
	/** A file, and what a stored copy of it must say it is; undefined: not a file (text, zero bytes). */
	file?: { mimeType: string; extension: string };
	/** Made not whole (cut, a near miss, a size that lies, bytes after a format whose end is the file's): never stored. */
	notWhole?: true;
	/** The body in words, for a failing schedule's report. */
	what: string;
}

/** Whether this schedule's file host serves bodies from the corpus. */
export function drawsFileBodies(schedule: Schedule): boolean {
	return Random.stream(schedule.seed, 'files').chance(0.3);
}

/** Bytes of a binary of no known format: a JPEG XL codestream's mark, then noise. */
function unknownBinary(random: Random, length: number): Buffer {
	const noise = Buffer.from(Array.from({ length }, () => random.int(0, 255)));
	return Buffer.concat([Buffer.from([0xff, 0x0a]), noise]);
}

const made = ({ bytes, what }: BrokenFile) => ({ bytes, what });

/**
 * A real file: whole, cut short after its signature (64 bytes at least; a cut that leaves a whole file, as after a
 * fragment of a fragmented MP4, is whole), with bytes of any kind after it (whole only for a format that marks its
 * own end), or a near miss: its first 64 bytes then a text, or a size field that claims more than the file holds.
 */
function realFile(random: Random, tag: Buffer): Omit<FileBody, 'type'> {
	const fixture = random.pick(MEDIA_FIXTURES);
	const bytes = fixtureBytes(fixture);
	const file = { mimeType: fixture.mimeType, extension: fixture.extension };
	const shape = random.weighted([
		[3, 'whole'],
		[1, 'cut'],
		[1, 'padded'],
		[1, 'magic'],
		[1, 'lie'],
	] as const);
	if (shape === 'cut') {
		const length = random.int(Math.min(64, bytes.length), bytes.length - 1);
		const whole = wholeCuts(fixture).includes(length);
		return { ...made(cutFile(fixture, length)), file, ...(whole ? {} : { notWhole: true as const }) };
	}
	if (shape === 'padded') {
		const padding = random.pick([
			tag,
			Buffer.from('<html>not the file</html>'),
			Buffer.alloc(5000),
			unknownBinary(random, 300),
		]);
		const padded = {
			bytes: Buffer.concat([bytes, padding]),
			file,
			what: `${fixture.file} and ${padding.length} more bytes`,
		};
		return ENDS_ITSELF.has(fixture.mimeType) ? padded : { ...padded, notWhole: true as const };
	}
	if (shape === 'magic') return { ...made(magicThenText(fixture, 64, random.int(0, 99))), file, notWhole: true };
	if (shape === 'lie') return { ...made(lyingSize(fixture)), file, notWhole: true };
	return { bytes, file, what: fixture.file };
}

function notAFile(random: Random): Omit<FileBody, 'type'> {
	const kind = random.weighted([
		[6, 'text'],
		[1, 'page'],
		[1, 'zeros'],
	] as const);
	if (kind === 'page') {
		const page = `<html><body>${'<p>Please sign in to continue.</p>\n'.repeat(random.int(200, 9000))}</body></html>`;
		return { bytes: Buffer.from(page), what: `a page of ${page.length} characters` };
	}
	if (kind === 'zeros') return { bytes: Buffer.alloc(random.int(1, 8192)), what: 'zero bytes' };
	const [name, text] = random.pick(HOST_TEXTS);
	const encoding = random.pick(TEXT_ENCODINGS);
	return { bytes: encodeText(text, encoding), what: `${name} in ${encoding}` };
}

/**
 * The body of the file `name` (`<taskid>-<n>.<ext>`) in a schedule that draws from the corpus; `tag` makes a body
 * differ from every other URL's.
 */
export function fileBody(schedule: Schedule, name: string, tag: Buffer): FileBody {
	const random = Random.stream(schedule.seed, 'files', name);
	const drawn = random.weighted<() => Omit<FileBody, 'type'>>([
		[6, () => realFile(random, tag)],
		[3, () => notAFile(random)],
		[
			1,
			() => ({
				bytes: unknownBinary(random, random.int(100, 6000)),
				file: { mimeType: 'application/octet-stream', extension: 'bin' },
				what: 'a binary of no known format',
			}),
		],
	])();
	return { ...drawn, type: random.pick(TYPE_HEADERS) };
}

/**
 * The classic bodies, different for every URL: a real PNG with the tag after its end, or a real MP4 that ends with a
 * free box holding the tag.
 */
export function classicBody(name: string, tag: Buffer): FileBody {
	if (name.endsWith('.mp4')) {
		const free = Buffer.alloc(8);
		free.writeUInt32BE(8 + tag.length, 0);
		free.write('free', 4, 'latin1');
		const bytes = Buffer.concat([fixtureBytes('mp4-faststart.mp4'), free, tag]);
		return { bytes, type: 'video/mp4', file: { mimeType: 'video/mp4', extension: 'mp4' }, what: 'an MP4' };
	}
	const bytes = Buffer.concat([makePng(4, 4), tag]);
	return { bytes, type: 'image/png', file: { mimeType: 'image/png', extension: 'png' }, what: 'a PNG' };
}

/** This generator's part of a schedule, in words. */
export function describeFiles(schedule: Schedule): string {
	return drawsFileBodies(schedule)
		? 'file bodies: drawn from the corpus (real files whole, cut, padded or near misses, text, markup, zero bytes, unknown binaries; any Content-Type)'
		: 'file bodies: a PNG or an MP4';
}
