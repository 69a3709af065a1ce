/**
 * Generator "keys": how a server that echoes the API key back writes it. In half of the schedules (drawn from the
 * stream 'keys'), every echo of the key (generator "faults"' `echo-key` answers: a success whose message and fields
 * carry the key; and the message of every refusal the API sends with a body) is written in an encoding drawn per
 * request and place from test/keyEncodings.ts: percent-encoded at any depth and case, HTML character references
 * (decimal, hex, named, escaped again, percent-encoded), JSON and JavaScript escapes, base64 and base64url wrapped in
 * lines, or a mix character by character. Invariant 7 looks for the key in every one of those encodings in all that
 * n8n keeps.
 */
import { KEY_ENCODINGS } from '../../keyEncodings';
import { Random } from '../random';
import type { Schedule } from '../schedule';
import type { RequestKind } from './faults';

/** A schedule's API key: its seed first, so that a request names the schedule whose node sent it (keyOwner). */
export function apiKeyOf(seed: number): string {
	return `key-${seed}-Zq9k${(seed * 2654435761) >>> 0}`;
}

/**
 * " with seed N's key" when an Authorization header carries seed N's key (apiKeyOf), else nothing: schedules run
 * side by side in one process, and a port a finished schedule's world let go may be another world's now.
 */
export function keyOwner(authorization: unknown): string {
	const seed = /^key-(\d+)-/.exec(String(authorization ?? ''))?.[1];
	return seed === undefined ? '' : ` with seed ${seed}'s key`;
}

/** Whether this schedule's servers write the key they echo in an encoding (else as it is). */
export function encodesKeys(schedule: Schedule): boolean {
	return Random.stream(schedule.seed, 'keys').chance(0.5);
}

/**
 * The key as the server echoes it in one place (`place`: "msg", a field's name, …) of its answer to attempt
 * `attempt` of a request of `kind` for `item`.
 */
export function echoedKey(
	schedule: Schedule,
	key: string,
	kind: RequestKind,
	item: number,
	attempt: number,
	place: string,
): string {
	if (!encodesKeys(schedule)) return key;
	return Random.stream(schedule.seed, 'keys', kind, item, attempt, place).pick(KEY_ENCODINGS).encode(key);
}

/** This generator's part of a schedule, in words. */
export function describeKeys(schedule: Schedule): string {
	return encodesKeys(schedule)
		? `the key echoed in ${KEY_ENCODINGS.length} encodings (percent at any depth, HTML references, JSON and JavaScript escapes, base64 in lines, mixes), also in refusals`
		: 'the key echoed as it is';
}
