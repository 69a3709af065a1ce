/** MIME types and file extensions of the files the node sends and receives. */

const MIME_BY_EXTENSION: Record<string, string> = {
	png: 'image/png',
	webp: 'image/webp',
	jpg: 'image/jpeg',
	jpeg: 'image/jpeg',
	gif: 'image/gif',
	bmp: 'image/bmp',
	tif: 'image/tiff',
	tiff: 'image/tiff',
	mp4: 'video/mp4',
	pdf: 'application/pdf',
	txt: 'text/plain',
};

const EXTENSION_BY_MIME: Record<string, string> = {
	'image/png': 'png',
	'image/webp': 'webp',
	'image/jpeg': 'jpg',
	'image/gif': 'gif',
	'image/bmp': 'bmp',
	'image/tiff': 'tif',
	'image/avif': 'avif',
	'image/heic': 'heic',
	'video/mp4': 'mp4',
	'video/quicktime': 'mov',
	'video/webm': 'webm',
};

export function mimeFromFileName(fileName: string | undefined): string | undefined {
	const extension = /\.([a-z0-9]+)$/i.exec(fileName ?? '')?.[1]?.toLowerCase();
	return extension ? MIME_BY_EXTENSION[extension] : undefined;
}

export function extensionFromMime(mimeType: string | undefined): string | undefined {
	return mimeType ? EXTENSION_BY_MIME[mimeType.split(';')[0].trim().toLowerCase()] : undefined;
}

/** The media type a file's first bytes announce (images and videos only), when they announce one. */
export function sniffMediaType(head: Buffer): string | undefined {
	const ascii = (start: number, end: number) => head.subarray(start, end).toString('latin1');
	if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
	if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
	if (ascii(0, 4) === 'GIF8') return 'image/gif';
	if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
	if (ascii(0, 2) === 'BM' && head.length >= 14) return 'image/bmp';
	if (ascii(0, 4) === 'II*\0' || ascii(0, 4) === 'MM\0*') return 'image/tiff';
	if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'video/webm';
	if (ascii(4, 8) === 'ftyp') {
		const brand = ascii(8, 12);
		if (brand === 'avif' || brand === 'avis') return 'image/avif';
		if (/^(heic|heix|mif1|msf1)$/.test(brand)) return 'image/heic';
		return brand === 'qt  ' ? 'video/quicktime' : 'video/mp4';
	}
	return undefined;
}
