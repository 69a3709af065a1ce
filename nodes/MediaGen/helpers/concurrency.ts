/**
 * Runs `worker` over `inputs` with at most `limit` calls in flight, preserving input order in the result.
 */
export async function mapConcurrent<T, R>(
	inputs: readonly T[],
	limit: number,
	worker: (input: T, index: number) => Promise<R>,
): Promise<R[]> {
	const results: R[] = new Array(inputs.length);
	let next = 0;
	const lanes = Array.from({ length: Math.max(1, Math.min(limit, inputs.length)) }, async () => {
		while (next < inputs.length) {
			const index = next++;
			results[index] = await worker(inputs[index], index);
		}
	});
	await Promise.all(lanes);
	return results;
}
