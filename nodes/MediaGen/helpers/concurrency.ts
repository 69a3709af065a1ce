/**
 * Runs `worker` over `inputs` with at most `limit` calls in flight, preserving input order in the result.
 * Once `shouldStop()` is true no new call starts (calls in flight finish); unstarted slots stay undefined.
 */
export async function mapConcurrent<T, R>(
	inputs: readonly T[],
	limit: number,
	worker: (input: T, index: number) => Promise<R>,
	shouldStop: () => boolean = () => false,
): Promise<Array<R | undefined>> {
	const results: Array<R | undefined> = new Array(inputs.length).fill(undefined);
	let next = 0;
	const lanes = Array.from({ length: Math.max(1, Math.min(limit, inputs.length)) }, async () => {
		while (next < inputs.length && !shouldStop()) {
			const index = next++;
			results[index] = await worker(inputs[index], index);
		}
	});
	await Promise.all(lanes);
	return results;
}
