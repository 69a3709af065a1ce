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
