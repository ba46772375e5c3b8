/**
 * A files submission's answer under its Idempotency-Key when an upload it names is gone: consumed
 * by a version since, perhaps by the version of this same request's first try, whose answer the
 * request gets again (another request under the key is refused as the key's reuse).
 */
import { idempotencyRef, type StoredAnswer } from '#shared/data/idempotency.ts';
import { getItems } from '#shared/data/items.ts';
import { isValidIdempotencyKey } from '#shared/ids.ts';
import type { VersionFilesStore } from '#shared/storage/version-files.ts';
import { answerAgain, type SubmitAnswer } from './submit-commit.ts';
import type { Admitted } from './submit-refuse.ts';

/**
 * The first answer to a request sent with `idempotencyKey`, read now: an upload found gone may
 * have been consumed by that request's own version since the request's reads.
 */
export async function answeredBefore(callerId: string, idempotencyKey: string | undefined): Promise<StoredAnswer | undefined> {
  if (idempotencyKey === undefined || !isValidIdempotencyKey(idempotencyKey)) return undefined;
  return (await getItems({ previous: idempotencyRef(`${callerId}#${idempotencyKey}`) })).previous;
}

/**
 * What a submission that ended with `error` answers: when the error is an upload gone before its
 * copy (`files`), the first answer under the request's Idempotency-Key, provided it is the same
 * request; otherwise the error is thrown again.
 */
export async function answerOfGoneUpload(
  error: unknown,
  files: VersionFilesStore,
  request: { readonly callerId: string; readonly idempotencyKey: string | undefined; readonly admitted: Admitted | undefined },
): Promise<SubmitAnswer> {
  const previous = files.isGone(error) ? await answeredBefore(request.callerId, request.idempotencyKey) : undefined;
  const { admitted } = request;
  const idempotency = admitted?.idempotency;
  if (!previous || !admitted || !idempotency) throw error;
  return await answerAgain(previous, { ...admitted, idempotency });
}
