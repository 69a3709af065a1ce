/**
 * The only door to HTTP. Each job has its own file, which says what it is for, so that the security rules (the key
 * goes to the Base URL only and never into a message; result files go without it) can be reviewed on their own.
 */
export { apiJsonRequest, apiMultipartRequest, ApiSession, type ApiRequestContext } from './api';
export { notKnownIn, readStatusText, type StatusReading } from './wording';
export { mayHaveCreated, RESPONSE_CODE } from './envelope';
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
