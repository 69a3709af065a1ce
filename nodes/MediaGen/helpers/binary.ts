import type { IBinaryData, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { downloadInterrupted, downloadResultFile } from '../transport';
import { streamedFile, type StreamedFile } from '../transport/multipart';

/** Read size of upload streams: small enough to bound memory, large enough to keep the socket busy. */
const UPLOAD_CHUNK_BYTES = 256 * 1024;

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

/** A file of an input item, described without reading its bytes. */
export interface InputFile {
	propertyName: string;
	fileName: string;
	mimeType: string;
}

export function describeInputFile(binary: IBinaryData, propertyName: string): InputFile {
	const extensionName = binary.fileExtension ? `${propertyName}.${binary.fileExtension}` : propertyName;
	const fileName = binary.fileName || extensionName;
	const declared = (binary.mimeType || '').split(';')[0].trim().toLowerCase();
	const mimeType = declared && declared !== 'application/octet-stream' ? declared : (mimeFromFileName(fileName) ?? (declared || 'application/octet-stream'));
	return { propertyName, fileName, mimeType };
}

export function binaryPropertiesOf(item: INodeExecutionData): string[] {
	return Object.keys(item.binary ?? {});
}

/** The first bytes of an input file, read without loading the whole file (filesystem and S3 modes stream). */
export async function readFileHeader(
	this: IExecuteFunctions,
	itemIndex: number,
	propertyName: string,
	bytes: number,
): Promise<Buffer> {
	const binary = this.helpers.assertBinaryData(itemIndex, propertyName);
	if (!binary.id) return Buffer.from(binary.data, 'base64').subarray(0, bytes);
	const stream = await this.helpers.getBinaryStream(binary.id, Math.max(bytes, 64));
	const chunks: Buffer[] = [];
	let length = 0;
	for await (const chunk of stream) {
		chunks.push(chunk as Buffer);
		length += (chunk as Buffer).length;
		if (length >= bytes) break;
	}
	stream.destroy();
	return Buffer.concat(chunks).subarray(0, bytes);
}

/**
 * A file of an input item as a multipart part. Files in n8n's binary storage (filesystem, S3, database) are
 * streamed from it while the request is sent, never held whole; a file kept inside the item (memory mode) is
 * already in memory and goes as a Blob.
 */
export async function filePart(this: IExecuteFunctions, itemIndex: number, file: InputFile): Promise<Blob | StreamedFile> {
	const binary = this.helpers.assertBinaryData(itemIndex, file.propertyName);
	if (!binary.id) return new Blob([Buffer.from(binary.data, 'base64')], { type: file.mimeType });
	const id = binary.id;
	const { fileSize } = await this.helpers.getBinaryMetadata(id);
	return streamedFile(file.fileName, file.mimeType, fileSize, async () => await this.helpers.getBinaryStream(id, UPLOAD_CHUNK_BYTES));
}

/** The last path segment of a URL, when it looks like a file name. */
function fileNameFromUrl(url: string): string | undefined {
	try {
		const segment = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
		return /\.[a-z0-9]{2,5}$/i.test(segment) ? segment : undefined;
	} catch {
		return undefined;
	}
}

/** `<taskid>-<n>.<ext>`, n being the file's index in `urls`; characters unsafe in file names become `_`. */
export function resultFileName(taskId: string, index: number, extension: string): string {
	return `${taskId.replace(/[^\w.-]+/g, '_')}-${index}.${extension}`;
}

/**
 * Downloads a task's result files into n8n binary data, streamed (never held whole in memory).
 * Property names: `prefix`, `prefix_1`, … on one item, or `prefix` on each item when results are split.
 */
export async function downloadResults(
	this: IExecuteFunctions,
	task: { itemIndex: number; taskId: string },
	urls: string[],
	options: { binaryPrefix: string; split: boolean; requestTimeoutMs: number },
): Promise<Array<INodeExecutionData['binary']>> {
	const binaries: Array<INodeExecutionData['binary']> = [];
	for (let index = 0; index < urls.length; index++) {
		const context = { itemIndex: task.itemIndex, taskId: task.taskId, timeout: options.requestTimeoutMs };
		const file = await downloadResultFile.call(this, urls[index], context);
		const mimeType =
			file.mimeType && file.mimeType !== 'application/octet-stream'
				? file.mimeType
				: (mimeFromFileName(file.fileName) ?? mimeFromFileName(fileNameFromUrl(urls[index])));
		const namedLike = file.fileName ?? fileNameFromUrl(urls[index]);
		const extension = extensionFromMime(mimeType) ?? /\.([a-z0-9]{1,5})$/i.exec(namedLike ?? '')?.[1]?.toLowerCase() ?? 'bin';
		// Named after the task, so files of merged items never collide (servers often call every file 0.png).
		const fileName = resultFileName(task.taskId, index, extension);
		const property = options.split || index === 0 ? options.binaryPrefix : `${options.binaryPrefix}_${index}`;
		try {
			binaries.push({ [property]: await this.helpers.prepareBinaryData(file.body as never, fileName, mimeType) });
		} catch (error) {
			// Release the connection, and name the task: a bare "aborted" would lose it.
			(file.body as { destroy?: () => void }).destroy?.();
			throw downloadInterrupted.call(this, urls[index], error, context, file.signal);
		}
	}
	return binaries;
}
