/** A finished task's result file, stored into n8n's binary storage as it streams in (never held whole in memory). */
import type { IBinaryData, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import {
	downloadInterrupted,
	emptyResultFile,
	inspectResultFile,
	type DownloadedFile,
	type RequestContext,
} from '../transport';

/** The stored size: `bytes` (n8n 2.x), else the "0 B" that n8n 1.x writes into `fileSize`. */
export function storedBytes(binary: IBinaryData): number | undefined {
	const bytes = (binary as IBinaryData & { bytes?: unknown }).bytes;
	if (typeof bytes === 'number') return bytes;
	return typeof binary.fileSize === 'string' && /^0(\.0+)?\s*B$/i.test(binary.fileSize.trim()) ? 0 : undefined;
}

/**
 * Stores one downloaded result file as binary data: `prefix`, `prefix_1`, … on one item, or `prefix` on each item
 * when results are split; what may be refused: docs/waiting-and-output.md, "What a result file may be".
 */
export async function storeResultFile(
	this: IExecuteFunctions,
	file: DownloadedFile,
	url: string,
	index: number,
	options: { binaryPrefix: string; split: boolean },
	context: RequestContext & { taskId: string },
): Promise<NonNullable<INodeExecutionData['binary']>> {
	if (file.size === 0) {
		file.release();
		throw emptyResultFile.call(this, url, context);
	}
	// The bytes tell the type, never the host: a stored file's MIME type and extension always say what it is.
	const { format, body } = await inspectResultFile.call(this, file, url, context);
	const mimeType = format?.mimeType ?? 'application/octet-stream';
	const extension = format?.extensions[0] ?? 'bin';
	// `<taskid>-<n>.<ext>`, n its index in `urls` and unsafe characters `_`: named after the task, so that files of
	// merged items never collide (servers often call every file 0.png).
	const fileName = `${context.taskId.replace(/[^\w.-]+/g, '_')}-${index}.${extension}`;
	const property = options.split || index === 0 ? options.binaryPrefix : `${options.binaryPrefix}_${index}`;
	let binary: IBinaryData;
	try {
		binary = await this.helpers.prepareBinaryData(body, fileName, mimeType);
	} catch (error) {
		// Name the task (a bare "aborted" would lose it), then release the connection: releasing aborts the signal
		// the reason is read from.
		const failure = downloadInterrupted.call(this, url, error, context, file.signal);
		file.release();
		throw failure;
	}
	if (storedBytes(binary) === 0) throw emptyResultFile.call(this, url, context);
	return { [property]: binary };
}
