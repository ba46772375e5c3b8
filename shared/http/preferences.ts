/** Answers that follow the request's `Prefer` header beyond `http-status` (which the envelope applies). */
import { PREFERENCE_APPLIED, prefersRepresentation } from './envelope.ts';
import { WithHeaders } from './paging.ts';

/**
 * The reference's answer, or with `Prefer: return=representation` the representation instead,
 * named in `Preference-Applied` (read only when preferred).
 */
export async function answerAsPreferred<Representation>(
  prefer: string | undefined,
  reference: string,
  representation: () => Promise<Representation>,
): Promise<string | WithHeaders> {
  if (!prefersRepresentation(prefer)) return reference;
  return new WithHeaders(await representation(), { [PREFERENCE_APPLIED]: 'return=representation' });
}
