import { getItems } from '#shared/data/items.ts';
import { recordedResultsRef } from '#shared/data/results.ts';
import { gradeableKey, type Submission } from '#shared/data/submissions.ts';
import type { GradingRecordPayload } from './grading-record.ts';
import { storedResultSha256 } from './grading-record.ts';
import { noSuchRecordVersion, recordNotKept, versionNotGraded } from './failures.ts';

/** What the record route answers: the signed record, its payload, and the hash of the result as stored now (and, to staff, the result). */
export interface VersionRecordAnswer {
  readonly record: string;
  readonly payload: GradingRecordPayload;
  readonly result_sha256: string;
  readonly result?: { readonly version: number; readonly testCases: readonly unknown[]; readonly points: number };
}

/** The payload of a compact JWS, as the signer wrote it (its signature is the verifier's to check). */
export const recordPayload = (jws: string): GradingRecordPayload =>
  JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')) as GradingRecordPayload;

/**
 * A version's grading record as its last grading stored it, with the SHA-256 of its result as
 * stored now: unequal to the record's `result_sha256` when the result was changed after it was
 * graded. Staff also get the result itself (it holds hidden test cases before grades are released).
 */
export async function versionRecord(submission: Submission | undefined, version: number, staff: boolean): Promise<VersionRecordAnswer> {
  const summary = submission?.versions.find((entry) => entry.version === version);
  if (!submission || !summary) throw noSuchRecordVersion({ version });
  const key = gradeableKey(submission.term, submission.course, submission.gradeableId);
  const { stored } = await getItems({ stored: recordedResultsRef(key, submission.ownerId, version) });
  if (!stored) throw versionNotGraded({ version, state: summary.state });
  if (!stored.record) throw recordNotKept({ version });
  return {
    record: stored.record,
    payload: recordPayload(stored.record),
    result_sha256: storedResultSha256(stored.result),
    ...(staff ? { result: stored.result } : {}),
  };
}
