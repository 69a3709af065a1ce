/** Width and height of a PNG, JPEG or WebP (a mask, a reference image) from its first bytes, without decoding it. */
import { isFrame, standalone } from './imageWalkers';

export interface ImageSize {
	width: number;
	height: number;
}

/** Enough for PNG and WebP, and for a JPEG whose metadata segments before the frame header are small. */
export const IMAGE_SIZE_HEADER_BYTES = 64 * 1024;

export function isJpeg(header: Buffer): boolean {
	return header.length >= 3 && header[0] === 0xff && header[1] === 0xd8 && header[2] === 0xff;
}

/** Signature, IHDR length and type, width and height. */
export const PNG_HEADER_BYTES = 24;

export function pngSize(header: Buffer): ImageSize | undefined {
	if (header.length < PNG_HEADER_BYTES || header.toString('latin1', 0, 8) !== '\x89PNG\r\n\x1a\n') return undefined;
	if (header.toString('ascii', 12, 16) !== 'IHDR') return undefined;
	return { width: header.readUInt32BE(16), height: header.readUInt32BE(20) };
}

/** Undefined when the first frame header is not within `bytes`. */
function jpegSize(bytes: Buffer): ImageSize | undefined {
	let offset = 2;
	while (offset + 4 <= bytes.length) {
		if (bytes[offset] !== 0xff) return undefined;
		const marker = bytes[offset + 1];
		if (marker === 0xff || marker === 0xd8 || standalone(marker)) {
			offset += marker === 0xff ? 1 : 2; // a fill byte, or a marker without a length
			continue;
		}
		if (marker === 0xd9 || marker === 0xda) return undefined; // end of image, or scan data before any frame header
		const length = bytes.readUInt16BE(offset + 2);
		if (isFrame(marker)) {
			if (offset + 9 > bytes.length) return undefined;
			return { height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) };
		}
		offset += 2 + length;
	}
	return undefined;
}

/** The three WebP bitstreams: lossy (VP8), lossless (VP8L) and extended (VP8X, which states the canvas size). */
function webpSize(bytes: Buffer): ImageSize | undefined {
	if (bytes.length < 30 || bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WEBP')
		return undefined;
	const chunk = bytes.toString('ascii', 12, 16);
	if (chunk === 'VP8 ') {
		if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return undefined;
		return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
	}
	if (chunk === 'VP8L') {
		if (bytes[20] !== 0x2f) return undefined;
		const bits = bytes.readUInt32LE(21);
		return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
	}
	if (chunk === 'VP8X') return { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
	return undefined;
}

export function imageSize(bytes: Buffer): ImageSize | undefined {
	if (isJpeg(bytes)) return jpegSize(bytes);
	return pngSize(bytes) ?? webpSize(bytes);
}
