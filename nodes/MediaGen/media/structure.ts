/**
 * Whether a file is whole, checked as it streams past: each format's walker (imageWalkers.ts, containerWalkers.ts)
 * asks this driver for bytes ("read 8", "skip 1,336") and throws a StructureFault where they break the format.
 * After a walker returns nothing is judged (JPEG Motion Photos append a video after EOI).
 */

export class StructureFault extends Error {
	constructor(
		readonly at: number,
		message: string,
		/** The file ended (or is announced to end) inside a structure, rather than holding wrong bytes. */
		readonly cut = false,
	) {
		super(message);
	}
}

/** What a walker asks for next. `what` names the structure, for the message of a file cut inside it. */
type WalkStep =
	/** Exactly `bytes` bytes (at most MAX_READ); with `orEnd`, null when the file ends right here. */
	| { op: 'read'; bytes: number; orEnd?: boolean; what: string }
	| { op: 'skip'; bytes: number; what: string }
	/** Answers the file's length. */
	| { op: 'toEnd' }
	/** JPEG entropy-coded data: passes over it to the next marker that is not a restart; answers that marker. */
	| { op: 'jpegScan'; what: string }
	/** GIF data sub-blocks, up to and including the empty one that ends them. */
	| { op: 'gifBlocks'; what: string };

export interface Cursor {
	at: number;
}

export type Walk<T = void> = Generator<WalkStep, T, unknown>;

export type Walker = (cursor: Cursor) => Walk;

/** The longest read (a header, an index box, a strip table): a check holds at most this much of any file. */
export const MAX_READ = 256 * 1024;

export function* read(bytes: number, what: string): Walk<Buffer> {
	return (yield { op: 'read', bytes, what }) as Buffer;
}

export function* readOrEnd(bytes: number, what: string): Walk<Buffer | null> {
	return (yield { op: 'read', bytes, orEnd: true, what }) as Buffer | null;
}

export function* skip(bytes: number, what: string): Walk {
	if (bytes > 0) yield { op: 'skip', bytes, what };
}

export function* toEnd(): Walk<number> {
	return (yield { op: 'toEnd' }) as number;
}

/** The rest of the file must hold what its index locates (TIFF's strips, HEIF's extents: on either side of it). */
export function* holds(needed: { end: number; what: string }): Walk {
	const length = yield* toEnd();
	if (needed.end > length) {
		throw new StructureFault(length, `the file ends at byte ${figure(length)}, before ${needed.what}`, true);
	}
}

export const figure = (value: number) => value.toLocaleString('en-US');

export const fault = (at: number, text: string) => new StructureFault(at, text);

export function showBytes(bytes: Buffer): string {
	const text = bytes.toString('latin1');
	return /^[\x20-\x7e]+$/.test(text) ? JSON.stringify(text) : bytes.toString('hex').replace(/(..)(?!$)/g, '$1 ');
}

/** "the chunk "IDAT" at byte 33 (1,234 bytes)". */
export function span(name: string, at: number, bytes: number): string {
	return `${name} at byte ${figure(at)} (${figure(bytes)} bytes)`;
}

/** `announced` (Content-Length) fails a structure that claims more bytes than that at once, before the rest is read. */
export class StructureCheck {
	private readonly cursor: Cursor = { at: 0 };
	private readonly walk: Walk;
	/** What the walker waits for; undefined once it has returned. */
	private step: WalkStep | undefined;
	private parts: Buffer[] = [];
	private collected = 0;
	/** Bytes a skip, or the current GIF sub-block, still passes over. */
	private left = 0;
	/** jpegScan: the last byte seen was 0xFF. */
	private afterFf = false;

	constructor(
		walker: Walker,
		private readonly announced?: number,
	) {
		this.walk = walker(this.cursor);
		this.resume(undefined);
	}

	push(chunk: Buffer): void {
		let offset = 0;
		while (offset < chunk.length && this.step) offset = this.take(chunk, offset);
		if (!this.step) this.cursor.at += chunk.length - offset;
	}

	end(): void {
		for (let step = this.step; step; step = this.step) {
			if (step.op === 'toEnd') this.resume(this.cursor.at);
			else if (step.op === 'read' && step.orEnd && this.collected === 0) this.resume(null);
			else throw this.cutInside(this.cursor.at, step);
		}
	}

	private cutInside(fileEnd: number, step: WalkStep): StructureFault {
		const what = 'what' in step ? step.what : 'the file';
		return new StructureFault(fileEnd, `the file ends at byte ${figure(fileEnd)}, inside ${what}`, true);
	}

	/** Starts the walker's next step with `answer` to its last one. */
	private resume(answer: unknown): void {
		const next = this.walk.next(answer);
		const step = next.done ? undefined : next.value;
		this.step = step;
		if (!step) return;
		this.parts = [];
		this.collected = 0;
		this.afterFf = false;
		this.left = step.op === 'skip' ? step.bytes : 0;
		if (step.op === 'read' && (step.bytes < 0 || step.bytes > MAX_READ)) {
			throw new StructureFault(this.cursor.at, `${step.what} claims ${figure(step.bytes)} bytes`);
		}
		if ((step.op === 'read' || step.op === 'skip') && this.announced !== undefined) {
			const end = this.cursor.at + step.bytes;
			if (end > this.announced && !(step.op === 'read' && step.orEnd && this.cursor.at === this.announced)) {
				throw this.cutInside(this.announced, step);
			}
		}
		// skip() asks for no empty skip; an empty read is answered at once.
		if (step.op === 'read' && step.bytes === 0) this.resume(Buffer.alloc(0));
	}

	/** Returns where the next step starts in `chunk`. */
	private take(chunk: Buffer, offset: number): number {
		const step = this.step!;
		const available = chunk.length - offset;
		switch (step.op) {
			case 'read': {
				const used = Math.min(step.bytes - this.collected, available);
				this.cursor.at += used;
				this.parts.push(chunk.subarray(offset, offset + used));
				this.collected += used;
				if (this.collected < step.bytes) return offset + used;
				// A read that one chunk holds is answered without a copy.
				this.resume(this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts));
				return offset + used;
			}
			case 'skip': {
				const used = Math.min(this.left, available);
				this.left -= used;
				this.cursor.at += used;
				if (!this.left) this.resume(undefined);
				return offset + used;
			}
			case 'toEnd':
				this.cursor.at += available;
				return chunk.length;
			case 'jpegScan':
				return this.scanJpeg(chunk, offset);
			case 'gifBlocks':
				return this.passBlocks(chunk, offset);
		}
	}

	/** Entropy-coded data ends at 0xFF followed by a byte that is not 0x00 (a stuffed 0xFF), a restart or 0xFF. */
	private scanJpeg(chunk: Buffer, offset: number): number {
		let at = offset;
		while (at < chunk.length) {
			if (this.afterFf) {
				const byte = chunk[at];
				at++;
				if (byte === 0xff) continue;
				this.afterFf = false;
				if (byte === 0x00 || (byte >= 0xd0 && byte <= 0xd7)) continue;
				this.cursor.at += at - offset;
				this.resume(byte);
				return at;
			}
			const ff = chunk.indexOf(0xff, at);
			this.afterFf = ff >= 0;
			at = ff < 0 ? chunk.length : ff + 1;
		}
		this.cursor.at += at - offset;
		return at;
	}

	/** Sub-blocks: a size byte, that many bytes, … until a size of 0. */
	private passBlocks(chunk: Buffer, offset: number): number {
		let at = offset;
		while (at < chunk.length) {
			if (this.left > 0) {
				const used = Math.min(this.left, chunk.length - at);
				this.left -= used;
				at += used;
				continue;
			}
			const size = chunk[at];
			at++;
			if (size === 0) {
				this.cursor.at += at - offset;
				this.resume(undefined);
				return at;
			}
			this.left = size;
		}
		this.cursor.at += at - offset;
		return at;
	}
}
