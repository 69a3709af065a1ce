/** A finished task's result files, downloaded into n8n's binary storage. */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { extensionFromMime, mimeFromFileName } from '../helpers/mime';
import { downloadInterrupted, downloadResultFile } from '../transport';

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
function resultFileName(taskId: string, index: number, extension: string): string {
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
	signal?: AbortSignal,
): Promise<Array<INodeExecutionData['binary']>> {
	const binaries: Array<INodeExecutionData['binary']> = [];
	for (let index = 0; index < urls.length; index++) {
		const context = { itemIndex: task.itemIndex, taskId: task.taskId, timeout: options.requestTimeoutMs, signal };
		const file = await downloadResultFile.call(this, urls[index], context);
		const mimeType =
			file.mimeType && file.mimeType !== 'application/octet-stream'
				? file.mimeType
				: (mimeFromFileName(file.fileName) ?? mimeFromFileName(fileNameFromUrl(urls[index])));
		const namedLike = file.fileName ?? fileNameFromUrl(urls[index]);
		const extension =
			extensionFromMime(mimeType) ?? /\.([a-z0-9]{1,5})$/i.exec(namedLike ?? '')?.[1]?.toLowerCase() ?? 'bin';
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
