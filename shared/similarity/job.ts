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
import { fileNameOf, fingerprintsKey, versionFilesPrefix } from '#shared/storage/keys.ts';
import { getObjectBytes, listObjects, putObject } from '#shared/storage/objects.ts';
import type { SimilarityRunMessage } from '#shared/summaries/queue.ts';
import { eventOutbox, similarityCompletedEvent } from '#shared/webhooks/publish.ts';
import { fingerprint, type Fingerprints } from './fingerprints.ts';
import { similarityIndex, type SubmissionFingerprints } from './pairs.ts';
import { KEPT_PAIRS, MAX_COMPARED_FILE_BYTES, textOf } from './limits.ts';
import { SIMILARITY_LEASE_SECONDS } from './runs.ts';
import { languageOf, tokenize } from './tokens.ts';

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

/** The fingerprints of one file's text. */
async function fingerprintText(path: string, text: string, language: string | undefined): Promise<Fingerprints> {
  return fingerprint(await tokenize(text, languageOf(path, language)));
}

/** A version of this gradeable, or of an earlier one compared with it. */
interface Compared extends ComparedVersion {
  readonly term: string;
  readonly course: string;
  readonly gradeableId: string;
}

/** A side's id in the index: the owner for this gradeable's versions, the whole path for an earlier one's. */
const sideId = (run: SimilarityRunRecord, compared: Compared): string =>
  compared.term === run.term && compared.course === run.course && compared.gradeableId === run.gradeableId
    ? compared.owner
    : `${compared.term}/${compared.course}/${compared.gradeableId}/${compared.owner}`;

/**
 * The fingerprints of one version's stored files, in their names' order: those an earlier run
 * stored for it (its files never change), else made from its files and stored.
 */
async function versionFingerprints(
  run: SimilarityRunRecord,
  compared: Compared,
  counts: { reused: number },
): Promise<SubmissionFingerprints> {
  const folder = { term: compared.term, course: compared.course, gradeable: compared.gradeableId, submitter: compared.owner };
  const key = fingerprintsKey(folder, compared.filesId, run.language ?? 'auto');
  // Listed first: S3 answers a missing key 403, not 404, to a role whose ListBucket is limited to a prefix.
  const listed = (await listObjects(key)).some((object) => object.key === key);
  const stored = listed ? await getObjectBytes(key) : undefined;
  if (stored !== undefined) {
    counts.reused++;
    return { id: sideId(run, compared), files: (JSON.parse(stored.toString('utf8')) as StoredFingerprints).files };
  }
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
  const body = Buffer.from(JSON.stringify({ files } satisfies StoredFingerprints));
  await putObject(key, body, body.length);
  return { id: sideId(run, compared), files };
}

/** A version's fingerprints as stored. */
interface StoredFingerprints {
  readonly files: { path: string; fingerprints: Fingerprints }[];
}

/**
 * Compares the run's submissions with each other and with those of the earlier gradeables, and
 * answers the pairs to keep, most similar first, and how many versions' fingerprints were read as
 * stored; `progress` is told after every PROGRESS_EVERY of this gradeable's versions fingerprinted
 * (and false from it stops the work: the lease was lost).
 */
export async function compareSubmissions(
  run: SimilarityRunRecord,
  versions: readonly ComparedVersion[],
  earlier: readonly Compared[],
  progress: (fingerprinted: number) => Promise<boolean>,
): Promise<{ pairs: StoredPair[]; reused: number } | undefined> {
  const counts = { reused: 0 };
  const own = versions.map((version) => ({ ...version, term: run.term, course: run.course, gradeableId: run.gradeableId }));
  const submissions: SubmissionFingerprints[] = [];
  for (const compared of own) {
    submissions.push(await versionFingerprints(run, compared, counts));
    if (submissions.length % PROGRESS_EVERY === 0 && !(await progress(submissions.length))) return undefined;
  }
  for (const compared of earlier) submissions.push(await versionFingerprints(run, compared, counts));
  const starterCode = await Promise.all((run.starterCode ?? []).map(({ path, content }) => fingerprintText(path, content, run.language)));
  const index = similarityIndex(submissions, { starterCode });
  const byId = new Map([...own, ...earlier].map((compared) => [sideId(run, compared), compared]));
  const isOwn = new Set(own.map((compared) => sideId(run, compared)));
  const side = (id: string) => {
    const compared = byId.get(id);
    if (compared === undefined) throw new Error(`No version compared as ${id}`);
    const { owner, version, term, course, gradeableId, filesId } = compared;
    return { owner, version, term, course, gradeableId, filesId };
  };
  const least = run.minMatchTokens ?? 0;
  // Earlier terms' versions are compared with this gradeable's only, never with each other.
  const ranked = index
    .pairs(KEPT_PAIRS, (left, right) => isOwn.has(left) || isOwn.has(right))
    .filter(({ longest_fragment }) => longest_fragment >= least)
    // This gradeable's side first.
    .map((pair) => (isOwn.has(pair.left) ? pair : { ...pair, left: pair.right, right: pair.left }));
  const pairs = ranked.map((pair, at) => {
    const fragments = index.fragments(pair.left, pair.right);
    return {
      runId: run.runId,
      rank: at + 1,
      left: side(pair.left),
      right: side(pair.right),
      similarity: pair.similarity,
      longestFragment: pair.longest_fragment,
      totalOverlap: pair.total_overlap,
      fragments,
      revision: 0,
    };
  });
  return { pairs, reused: counts.reused };
}

/** The active versions with stored files of the gradeables a run compares with. */
async function earlierVersions(run: SimilarityRunRecord): Promise<Compared[]> {
  const all: Compared[] = [];
  for (const { term, course, gradeableId } of run.compareWith ?? []) {
    for (const version of comparedVersions(await submissionsOfGradeable(term, course, gradeableId)))
      all.push({ ...version, term, course, gradeableId });
  }
  return all;
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
    const compared = await compareSubmissions(run, versions, await earlierVersions(run), (fingerprinted) =>
      recordSimilarityProgress(term, course, runId, { submissions: versions.length, fingerprinted }, lease),
    );
    // The lease was taken over: the delivery holding it now ends the run.
    if (compared === undefined) return;
    await writeSimilarityPairs(term, course, compared.pairs);
    outcome = {
      state: 'done',
      at: new Date().toISOString(),
      pairs: compared.pairs.length,
      submissions: versions.length,
      reused: compared.reused,
    };
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
