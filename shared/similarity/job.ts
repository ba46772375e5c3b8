/**
 * The worker's side of a similarity run (runs.ts asks for it): for one delivery of its message,
 * claims the run, reads each student's (or team's) active version's files as stored in the
 * submissions bucket (the files the grader got), fingerprints them, ranks the pairs, keeps the
 * KEPT_PAIRS most similar with their fragments, and ends the run done, or failed with why.
 * A version submitted from a repository has no stored files and is not compared.
 */
import { getItems } from '#shared/data/items.ts';
import {
  claimSimilarityRun,
  finishSimilarityRun,
  recordSimilarityProgress,
  similarityRunRef,
  writeSimilarityPairs,
  type SimilarityRunOutcome,
  type SimilarityRunRecord,
  type StoredPair,
} from '#shared/data/similarity-runs.ts';
import { submissionsOfGradeable, type Submission } from '#shared/data/submissions.ts';
import { isSimilarityRunId } from '#shared/ids.ts';
import { logger } from '#shared/logger.ts';
import { fileNameOf, versionFilesPrefix } from '#shared/storage/keys.ts';
import { getObjectBytes, listObjects } from '#shared/storage/objects.ts';
import type { SimilarityRunMessage } from '#shared/summaries/queue.ts';
import { eventOutbox, similarityCompletedEvent } from '#shared/webhooks/publish.ts';
import { fingerprint, type Fingerprints } from './fingerprints.ts';
import { similarityIndex, type SubmissionFingerprints } from './pairs.ts';
import { KEPT_PAIRS, SIMILARITY_LEASE_SECONDS } from './runs.ts';
import { languageOf, tokenize } from './tokens.ts';

/** A file larger than this is not compared (generated data, not code a student wrote). */
export const MAX_COMPARED_FILE_BYTES = 1024 * 1024;

/** Progress is recorded after every this many submissions fingerprinted. */
const PROGRESS_EVERY = 25;

/** A version to compare: whose, which, and where its files are. */
export interface ComparedVersion {
  readonly owner: string;
  readonly version: number;
  readonly filesId: string;
}

/** The active versions of a gradeable's submissions that have stored files, by owner. Pure. */
export function comparedVersions(submissions: readonly Submission[]): ComparedVersion[] {
  const versions: ComparedVersion[] = [];
  for (const submission of submissions) {
    const active = submission.versions.find(({ version }) => version === submission.activeVersion);
    if (active?.files !== undefined) versions.push({ owner: submission.ownerId, version: active.version, filesId: active.files });
  }
  return versions.sort((one, other) => (one.owner < other.owner ? -1 : one.owner > other.owner ? 1 : 0));
}

/** The text of a stored file, or undefined when it is not text (a NUL byte, or not UTF-8). Pure. */
export function textOf(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The fingerprints of one file's text. */
async function fingerprintText(path: string, text: string, language: string | undefined): Promise<Fingerprints> {
  return fingerprint(await tokenize(text, languageOf(path, language)));
}

/** The fingerprints of one version's stored files, in their names' order. */
async function versionFingerprints(run: SimilarityRunRecord, compared: ComparedVersion): Promise<SubmissionFingerprints> {
  const folder = { term: run.term, course: run.course, gradeable: run.gradeableId, submitter: compared.owner };
  const objects = await listObjects(versionFilesPrefix(folder, compared.filesId));
  const files: { path: string; fingerprints: Fingerprints }[] = [];
  for (const object of objects) {
    if (object.size > MAX_COMPARED_FILE_BYTES) continue;
    const bytes = await getObjectBytes(object.key, MAX_COMPARED_FILE_BYTES);
    const text = bytes === undefined ? undefined : textOf(bytes);
    if (text === undefined) continue;
    const path = fileNameOf(object.key);
    files.push({ path, fingerprints: await fingerprintText(path, text, run.language) });
  }
  return { id: compared.owner, files };
}

/**
 * Compares the run's submissions and answers the pairs to keep, most similar first; `progress` is
 * told after every PROGRESS_EVERY fingerprinted (and false from it stops the work: the lease was
 * lost).
 */
export async function compareSubmissions(
  run: SimilarityRunRecord,
  versions: readonly ComparedVersion[],
  progress: (fingerprinted: number) => Promise<boolean>,
): Promise<StoredPair[] | undefined> {
  const submissions: SubmissionFingerprints[] = [];
  for (const compared of versions) {
    submissions.push(await versionFingerprints(run, compared));
    if (submissions.length % PROGRESS_EVERY === 0 && !(await progress(submissions.length))) return undefined;
  }
  const starterCode = await Promise.all((run.starterCode ?? []).map(({ path, content }) => fingerprintText(path, content, run.language)));
  const index = similarityIndex(submissions, { starterCode });
  const byOwner = new Map(versions.map((compared) => [compared.owner, compared]));
  const side = (owner: string) => ({
    owner,
    version: byOwner.get(owner)?.version ?? 0,
    term: run.term,
    course: run.course,
    gradeableId: run.gradeableId,
    filesId: byOwner.get(owner)?.filesId ?? '',
  });
  const least = run.minMatchTokens ?? 0;
  const ranked = index.pairs(KEPT_PAIRS).filter(({ longest_fragment }) => longest_fragment >= least);
  return ranked.map((pair, at) => ({
    runId: run.runId,
    rank: at + 1,
    left: side(pair.left),
    right: side(pair.right),
    similarity: pair.similarity,
    longestFragment: pair.longest_fragment,
    totalOverlap: pair.total_overlap,
    fragments: index.fragments(pair.left, pair.right),
    revision: 0,
  }));
}

/**
 * The worker, for one delivery of a run's message: claims it (a copy of a message already acted
 * on is done with at once), compares, writes the kept pairs and ends it done, or failed with why.
 * The error is thrown only when the end could not be recorded, for the queue to deliver again.
 */
export async function runSimilarity(message: SimilarityRunMessage, now = new Date()): Promise<void> {
  const { term, course, runId } = message;
  if (!isSimilarityRunId(runId)) {
    logger.warn({ message: 'Similarity run message with a malformed id', runId: String(runId).slice(0, 64) });
    return;
  }
  const { run } = await getItems({ run: similarityRunRef(term, course, runId) });
  if (!run || run.state === 'done' || run.state === 'failed') return;
  const lease = await claimSimilarityRun(term, course, runId, { now, leaseUntil: now.getTime() + SIMILARITY_LEASE_SECONDS * 1000 });
  if (lease === undefined) return;
  let outcome: SimilarityRunOutcome;
  try {
    const versions = comparedVersions(await submissionsOfGradeable(term, course, run.gradeableId));
    await recordSimilarityProgress(term, course, runId, { submissions: versions.length, fingerprinted: 0 }, lease);
    const pairs = await compareSubmissions(run, versions, (fingerprinted) =>
      recordSimilarityProgress(term, course, runId, { submissions: versions.length, fingerprinted }, lease),
    );
    // The lease was taken over: the delivery holding it now ends the run.
    if (pairs === undefined) return;
    await writeSimilarityPairs(term, course, pairs);
    outcome = { state: 'done', at: new Date().toISOString(), pairs: pairs.length, submissions: versions.length };
  } catch (error) {
    logger.error({ message: 'Similarity run failed', course: `${term}/${course}`, runId, error: error as Error });
    outcome = { state: 'failed', at: new Date().toISOString(), message: `The submissions could not be compared (${runId}). Ask again.` };
  }
  // The webhook event is recorded with the run's end itself (the outbox), so it exists exactly when the end does.
  const outbox =
    outcome.state === 'done'
      ? eventOutbox(similarityCompletedEvent(run, { submissions: outcome.submissions, pairs: outcome.pairs }))
      : undefined;
  if (await finishSimilarityRun(term, course, runId, outcome, lease, outbox?.items)) await outbox?.send();
}
