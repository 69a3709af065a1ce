import { deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = (() => {
	const table = new Int32Array(256);
	for (let n = 0; n < 256; n++) {
		let c = n;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		table[n] = c;
	}
	return table;
})();

function crc32(buffer: Buffer): number {
	let crc = -1;
	for (const byte of buffer) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
	return (crc ^ -1) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
	const length = Buffer.alloc(4);
	length.writeUInt32BE(data.length);
	const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(typeAndData));
	return Buffer.concat([length, typeAndData, crc]);
}

/**
 * A real, decodable PNG: 8-bit RGB, a vertical gradient with a tint, so files differ visibly.
 * Rows are generated one at a time and deflated as a whole; fine for the sizes used here.
 */
export function makePng(width: number, height: number, tint = 0): Buffer {
	const header = Buffer.alloc(13);
	header.writeUInt32BE(width, 0);
	header.writeUInt32BE(height, 4);
	header[8] = 8; // bit depth
	header[9] = 2; // colour type: RGB
	const rowLength = 1 + width * 3;
	const raw = Buffer.alloc(rowLength * height);
	for (let y = 0; y < height; y++) {
		const offset = y * rowLength;
		const shade = Math.floor((y / Math.max(1, height - 1)) * 255);
		const pixel = [shade, (tint * 53) & 0xff, 255 - shade];
		raw[offset] = 0; // filter: none
		for (let x = 0; x < width; x++) raw.set(pixel, offset + 1 + x * 3);
	}
	return Buffer.concat([
		SIGNATURE,
		chunk('IHDR', header),
		chunk('IDAT', deflateSync(raw, { level: 1 })),
		chunk('IEND', Buffer.alloc(0)),
	]);
}

/** Width and height from a PNG's IHDR chunk, or undefined when the bytes are not a PNG. */
export function readPngSize(bytes: Buffer): { width: number; height: number } | undefined {
	if (bytes.length < 24 || !bytes.subarray(0, 8).equals(SIGNATURE)) return undefined;
	if (bytes.toString('ascii', 12, 16) !== 'IHDR') return undefined;
	return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}
