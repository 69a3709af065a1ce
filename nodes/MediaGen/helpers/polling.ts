/** Default bound on requests in flight at once, per node execution. */
export const DEFAULT_MAX_CONCURRENCY = 5;
