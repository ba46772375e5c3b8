/**
 * The worker's side of a similarity run (runs.ts asks for it): for one delivery of its message,
 * claims the run, reads each student's (or team's) active version's files (the files the grader
 * got: an upload's stored files, or a repository version's recorded commit, checked out as its
 * grading checked it out), fingerprints them, ranks the pairs, keeps the KEPT_PAIRS most similar
 * with their fragments, and ends the run done, or failed with why. A version that cannot be read
 * (its commit not recorded, its repository gone) is skipped, with why, and the run goes on.
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
  type SkippedVersion,
  type StoredPair,
} from '#shared/data/similarity-runs.ts';
import { submissionsOfGradeable, type Submission } from '#shared/data/submissions.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { isSimilarityRunId } from '#shared/ids.ts';
import { logger } from '#shared/logger.ts';
import { fileNameOf, fingerprintSourcesKey, fingerprintsKey, versionFilesPrefix, type SubmitterFolder } from '#shared/storage/keys.ts';
import { getObjectBytes, listObjects, putObject } from '#shared/storage/objects.ts';
import type { SimilarityRunMessage } from '#shared/summaries/queue.ts';
import { eventOutbox, similarityCompletedEvent } from '#shared/webhooks/publish.ts';
import { fingerprint, type Fingerprints } from './fingerprints.ts';
import { similarityIndex, type SubmissionFingerprints } from './pairs.ts';
import { KEPT_PAIRS, MAX_COMPARED_FILE_BYTES, MAX_KEPT_SOURCE_CHARACTERS, MAX_LISTED_SKIPPED, textOf } from './limits.ts';
import { repositorySources, type SourceFile } from './repository.ts';
import { SIMILARITY_LEASE_SECONDS } from './runs.ts';
import { languageOf, tokenize } from './tokens.ts';

/** Progress is recorded after every this many submissions fingerprinted. */
const PROGRESS_EVERY = 25;

/** A version to compare: whose, which, and where its files are (stored files, or a repository's commit). */
export type ComparedVersion =
  | { readonly owner: string; readonly version: number; readonly filesId: string }
  | { readonly owner: string; readonly version: number; readonly repository: string; readonly commit: string };

/** Why a version cannot be compared before anything is read. */
export const COMMIT_NOT_RECORDED =
  'Its commit is not recorded yet: it was never checked out (not graded yet, or a folder without history).';
export const NOTHING_RECORDED = 'It records neither stored files nor the repository it was submitted from.';

const byOwner = (one: { owner: string }, other: { owner: string }) => (one.owner < other.owner ? -1 : one.owner > other.owner ? 1 : 0);

/**
 * The active versions of a gradeable's submissions, by owner: each with its stored files or its
 * repository's recorded commit, and those that have neither, with why. Pure.
 */
export function comparedVersions(submissions: readonly Submission[]): {
  versions: ComparedVersion[];
  skipped: { owner: string; version: number; reason: string }[];
} {
  const versions: ComparedVersion[] = [];
  const skipped: { owner: string; version: number; reason: string }[] = [];
  for (const submission of submissions) {
    const active = submission.versions.find(({ version }) => version === submission.activeVersion);
    if (active === undefined) continue;
    const owner = submission.ownerId;
    if (active.files !== undefined) versions.push({ owner, version: active.version, filesId: active.files });
    else if (active.repository === undefined) skipped.push({ owner, version: active.version, reason: NOTHING_RECORDED });
    else if (active.commit === undefined) skipped.push({ owner, version: active.version, reason: COMMIT_NOT_RECORDED });
    else versions.push({ owner, version: active.version, repository: active.repository, commit: active.commit });
  }
  return { versions: versions.sort(byOwner), skipped: skipped.sort(byOwner) };
}

/** The fingerprints of one file's text. */
async function fingerprintText(path: string, text: string, language: string | undefined): Promise<Fingerprints> {
  return fingerprint(await tokenize(text, languageOf(path, language)));
}

/** A version of this gradeable, or of an earlier one compared with it (with its gradeable's repository subdirectory). */
type Compared = ComparedVersion & {
  readonly term: string;
  readonly course: string;
  readonly gradeableId: string;
  readonly subdirectory: string;
};

/** A side's id in the index: the owner for this gradeable's versions, the whole path for an earlier one's. */
const sideId = (run: SimilarityRunRecord, compared: Compared): string =>
  compared.term === run.term && compared.course === run.course && compared.gradeableId === run.gradeableId
    ? compared.owner
    : `${compared.term}/${compared.course}/${compared.gradeableId}/${compared.owner}`;

const folderOf = (compared: Compared): SubmitterFolder => ({
  term: compared.term,
  course: compared.course,
  gradeable: compared.gradeableId,
  submitter: compared.owner,
});

/** A stored JSON object, or undefined when there is none. */
async function storedJson<T>(key: string): Promise<T | undefined> {
  // Listed first: S3 answers a missing key 403, not 404, to a role whose ListBucket is limited to a prefix.
  const listed = (await listObjects(key)).some((object) => object.key === key);
  const stored = listed ? await getObjectBytes(key) : undefined;
  return stored === undefined ? undefined : (JSON.parse(stored.toString('utf8')) as T);
}

async function storeJson(key: string, value: unknown): Promise<void> {
  const body = Buffer.from(JSON.stringify(value));
  await putObject(key, body, body.length);
}

/** The texts of an uploaded version's stored files, in their names' order (files too large or not text left out). */
async function storedSources(compared: Compared & { filesId: string }): Promise<SourceFile[]> {
  const files: SourceFile[] = [];
  for (const object of await listObjects(versionFilesPrefix(folderOf(compared), compared.filesId))) {
    if (object.size > MAX_COMPARED_FILE_BYTES) continue;
    const bytes = await getObjectBytes(object.key, MAX_COMPARED_FILE_BYTES);
    const text = bytes === undefined ? undefined : textOf(bytes);
    if (text !== undefined) files.push({ path: fileNameOf(object.key), text });
  }
  return files;
}

/** The files of a repository version, kept while MAX_KEPT_SOURCE_CHARACTERS lasts, in their paths' order. Pure. */
export function keptSources(files: readonly SourceFile[]): SourceFile[] {
  let left = MAX_KEPT_SOURCE_CHARACTERS;
  return files.filter(({ text }) => (left -= text.length) >= 0);
}

/**
 * The texts of a repository version's files: those an earlier run kept (for a run of another
 * language setting, which then compares the kept texts only), else its commit checked out, and the
 * texts kept for its pairs' passages; or why it cannot be read.
 */
async function repositoryVersionSources(
  compared: Compared & { repository: string; commit: string },
): Promise<{ files: SourceFile[] } | { reason: string }> {
  const key = fingerprintSourcesKey(folderOf(compared), compared.commit);
  const kept = await storedJson<StoredSources>(key);
  if (kept !== undefined) return kept;
  const read = await repositorySources({ url: compared.repository, subdirectory: compared.subdirectory, commit: compared.commit });
  if ('reason' in read) return read;
  await storeJson(key, { files: keptSources(read.files) } satisfies StoredSources);
  return read;
}

/**
 * The fingerprints of one version's files, in their paths' order: those an earlier run stored for
 * it (its files never change), else made from its files and stored; or why it cannot be read.
 */
async function versionFingerprints(
  run: SimilarityRunRecord,
  compared: Compared,
  counts: { reused: number },
): Promise<SubmissionFingerprints | { reason: string }> {
  const id = 'filesId' in compared ? compared.filesId : compared.commit;
  const key = fingerprintsKey(folderOf(compared), id, run.language ?? 'auto');
  const stored = await storedJson<StoredFingerprints>(key);
  if (stored !== undefined) {
    counts.reused++;
    return { id: sideId(run, compared), files: stored.files };
  }
  const sources = 'filesId' in compared ? { files: await storedSources(compared) } : await repositoryVersionSources(compared);
  if ('reason' in sources) return sources;
  const files: { path: string; fingerprints: Fingerprints }[] = [];
  for (const { path, text } of sources.files) files.push({ path, fingerprints: await fingerprintText(path, text, run.language) });
  await storeJson(key, { files } satisfies StoredFingerprints);
  return { id: sideId(run, compared), files };
}

/** A version's fingerprints as stored. */
interface StoredFingerprints {
  readonly files: { path: string; fingerprints: Fingerprints }[];
}

/** A repository version's compared texts as kept. */
interface StoredSources {
  readonly files: SourceFile[];
}

/**
 * Compares the run's submissions with each other and with those of the earlier gradeables, and
 * answers the pairs to keep, most similar first, how many versions' fingerprints were read as
 * stored, how many of this gradeable's versions were compared, and the versions skipped, with why;
 * `progress` is told after every PROGRESS_EVERY of this gradeable's versions fingerprinted
 * (and false from it stops the work: the lease was lost).
 */
export async function compareSubmissions(
  run: SimilarityRunRecord,
  own: readonly Compared[],
  earlier: readonly Compared[],
  progress: (fingerprinted: number) => Promise<boolean>,
): Promise<{ pairs: StoredPair[]; reused: number; compared: number; skipped: SkippedVersion[] } | undefined> {
  const counts = { reused: 0 };
  const submissions: SubmissionFingerprints[] = [];
  const skipped: SkippedVersion[] = [];
  const read = async (compared: Compared) => {
    const fingerprints = await versionFingerprints(run, compared, counts);
    if ('reason' in fingerprints) {
      const { owner, version, term, course, gradeableId } = compared;
      skipped.push({ owner, version, term, course, gradeableId, reason: fingerprints.reason });
    } else submissions.push(fingerprints);
  };
  for (const [at, compared] of own.entries()) {
    await read(compared);
    if ((at + 1) % PROGRESS_EVERY === 0 && !(await progress(at + 1))) return undefined;
  }
  const compared = submissions.length;
  for (const version of earlier) await read(version);
  const starterCode = await Promise.all((run.starterCode ?? []).map(({ path, content }) => fingerprintText(path, content, run.language)));
  const index = similarityIndex(submissions, { starterCode });
  const byId = new Map([...own, ...earlier].map((version) => [sideId(run, version), version]));
  const isOwn = new Set(own.map((version) => sideId(run, version)));
  const side = (id: string) => {
    const version = byId.get(id);
    if (version === undefined) throw new Error(`No version compared as ${id}`);
    const { owner, term, course, gradeableId } = version;
    const where = 'filesId' in version ? { filesId: version.filesId } : { filesId: '', commit: version.commit };
    return { owner, version: version.version, term, course, gradeableId, ...where };
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
  return { pairs, reused: counts.reused, compared, skipped };
}

/**
 * A gradeable's active versions as a run compares them (with its repository subdirectory), and
 * those skipped before anything is read, with why.
 */
async function versionsOf(term: string, course: string, gradeableId: string): Promise<{ versions: Compared[]; skipped: SkippedVersion[] }> {
  const [{ gradeable }, submissions] = await Promise.all([
    getItems({ gradeable: gradeableRef(term, course, gradeableId) }),
    submissionsOfGradeable(term, course, gradeableId),
  ]);
  const subdirectory = gradeable?.vcs?.vcs_subdirectory ?? '';
  const { versions, skipped } = comparedVersions(submissions);
  const where = { term, course, gradeableId };
  return {
    versions: versions.map((version) => ({ ...version, ...where, subdirectory })),
    skipped: skipped.map((version) => ({ ...version, ...where })),
  };
}

/** The active versions of the gradeables a run compares with, and those skipped. */
async function earlierVersions(run: SimilarityRunRecord): Promise<{ versions: Compared[]; skipped: SkippedVersion[] }> {
  const all = { versions: [] as Compared[], skipped: [] as SkippedVersion[] };
  for (const { term, course, gradeableId } of run.compareWith ?? []) {
    const { versions, skipped } = await versionsOf(term, course, gradeableId);
    all.versions.push(...versions);
    all.skipped.push(...skipped);
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
    const own = await versionsOf(term, course, run.gradeableId);
    const earlier = await earlierVersions(run);
    const submissions = own.versions.length;
    await recordSimilarityProgress(term, course, runId, { submissions, fingerprinted: 0 }, lease);
    const compared = await compareSubmissions(run, own.versions, earlier.versions, (fingerprinted) =>
      recordSimilarityProgress(term, course, runId, { submissions, fingerprinted }, lease),
    );
    // The lease was taken over: the delivery holding it now ends the run.
    if (compared === undefined) return;
    await writeSimilarityPairs(term, course, compared.pairs);
    const skipped = [...own.skipped, ...compared.skipped, ...earlier.skipped];
    outcome = {
      state: 'done',
      at: new Date().toISOString(),
      pairs: compared.pairs.length,
      submissions: compared.compared,
      reused: compared.reused,
      skipped: skipped.length,
      skippedVersions: skipped.slice(0, MAX_LISTED_SKIPPED),
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
