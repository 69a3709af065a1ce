const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Bytes needed to read a PNG's size: signature, IHDR length and type, width and height. */
export const PNG_HEADER_BYTES = 24;

function isPng(header: Buffer): boolean {
	return header.length >= 8 && PNG_SIGNATURE.every((byte, index) => header[index] === byte);
}

/** Width and height from the IHDR chunk, or undefined when the bytes are not a PNG. */
export function pngSize(header: Buffer): { width: number; height: number } | undefined {
	if (!isPng(header) || header.length < PNG_HEADER_BYTES || header.toString('ascii', 12, 16) !== 'IHDR')
		return undefined;
	return { width: header.readUInt32BE(16), height: header.readUInt32BE(20) };
}
