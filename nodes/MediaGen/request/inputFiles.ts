/** The files of an input item: described without reading them, their first bytes, and streamed upload parts. */
import type { IBinaryData, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { mimeFromFileName } from '../media/formats';
import { streamedFile, type StreamedFile } from '../transport';

/** Read size of upload streams: small enough to bound memory, large enough to keep the socket busy. */
const UPLOAD_CHUNK_BYTES = 256 * 1024;

export interface InputFile {
	propertyName: string;
	fileName: string;
	mimeType: string;
}

export function describeInputFile(binary: IBinaryData, propertyName: string): InputFile {
	const fileName = binary.fileName || (binary.fileExtension ? `${propertyName}.${binary.fileExtension}` : propertyName);
	const declared = (binary.mimeType || '').split(';')[0].trim().toLowerCase();
	const mimeType =
		declared && declared !== 'application/octet-stream'
			? declared
			: (mimeFromFileName(fileName) ?? (declared || 'application/octet-stream'));
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
 * A file of an input item as a multipart part: streamed from n8n's binary storage while the request is sent, never
 * held whole; a file kept inside the item (memory mode) is already in memory and goes as a Blob.
 */
export async function filePart(
	this: IExecuteFunctions,
	itemIndex: number,
	file: InputFile,
): Promise<Blob | StreamedFile> {
	const binary = this.helpers.assertBinaryData(itemIndex, file.propertyName);
	if (!binary.id) return new Blob([Buffer.from(binary.data, 'base64')], { type: file.mimeType });
	const id = binary.id;
	const { fileSize } = await this.helpers.getBinaryMetadata(id);
	const open = async () => await this.helpers.getBinaryStream(id, UPLOAD_CHUNK_BYTES);
	return streamedFile(file.fileName, file.mimeType, fileSize, open);
}
