/**
 * The only door to HTTP. Each job has its own file, so that the security rules can be reviewed on their own:
 * - context.ts: what a request is for, and its total deadline (Request Timeout) joined with Stop;
 * - api.ts: the API call (the key goes to the Base URL only; no redirect is followed), and the session that reads
 *   the credential once per run;
 * - responseBody.ts: an answer's body, read up to 4 MiB, parsed, kept down to a depth, and the task id it names;
 * - envelope.ts: what an answer means: the envelope's data, or the error it is;
 * - errors.ts: what failed, and what the error knows (ErrorFacts: whether it may be repeated, created nothing, …);
 * - redaction.ts: the key never reaches a message or output (redacted before anything is cut);
 * - wording.ts: what a delete's status text and a refusal's message say about tasks, by the API's contract;
 * - download.ts: result files, without the credential, redirects checked hop by hop, transient failures marked;
 * - inspect.ts: what a result file is, by its first bytes (media/formats.ts), before it is stored, and whether it is whole,
 *   as it is stored (media/structure.ts drives each format's walker);
 * - multipart.ts: streamed multipart bodies.
 */
export { apiJsonRequest, apiMultipartRequest, ApiSession, type ApiRequestContext } from './api';
export { notKnownIn, readStatusText, type StatusReading } from './wording';
export { RESPONSE_CODE } from './envelope';
export {
	clampRequestTimeout,
	DEFAULT_REQUEST_TIMEOUT_MS,
	MAX_REQUEST_TIMEOUT_MS,
	type RequestContext,
} from './context';
export { downloadInterrupted, downloadResultFile, emptyResultFile, type DownloadedFile } from './download';
export { inspectResultFile } from './inspect';
export { factsOf, type ErrorFacts } from './errors';
export { StreamingForm, streamedFile, wireText, type StreamedFile } from './multipart';
