/**
 * Similarity reports as a job: `POST …/gradeable/{gradeable_id}/similarity` records a run and
 * queues it on the summaries queue (the summaries worker compares the submissions, never the
 * request); `GET …/similarity/{run_id}` answers where it is and, once done, its pairs most similar
 * first, a page at a time; `GET …/similarity` lists the gradeable's runs, newest first. Only the course's instructors reach these routes (their access).
 */
import { randomBytes } from 'node:crypto';
import { courseGroups, type Course, type Enrollment } from '#shared/courses/course.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { getItems } from '#shared/data/items.ts';
import { termRef, type Term } from '#shared/data/terms.ts';
import {
  createSimilarityRun,
  finishSimilarityRun,
  listedSimilarityRuns,
  similarityRunIdsPage,
  similarityPairsPage,
  similarityRunRef,
  type SimilarityRunRecord,
  type StarterFile,
  type StoredPair,
  type StoredPairSide,
} from '#shared/data/similarity-runs.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { isSimilarityRunId } from '#shared/ids.ts';
import { encodeCursor, readPageRequest } from '#shared/paging.ts';
import { sendSummariesJob, SUMMARIES_JOB_MAX_DELIVERIES, type SimilarityRunMessage } from '#shared/summaries/queue.ts';
import { RUN_ABANDONED } from './sweep.ts';
import {
  compareCourseNotYours,
  compareGradeableNotFound,
  compareTermLater,
  compareWithItself,
  similarityGradeableNotFound,
  similarityLanguageUnknown,
  similarityRunNotFound,
} from './failures.ts';
import { PAIRS_PAGE, RUNS_PAGE, SIMILARITY_LANGUAGES } from './limits.ts';

/** A new run id: `sr_` and 128 random bits (see SIMILARITY_RUN_ID in shared/ids.ts). */
export const newSimilarityRunId = (): string => `sr_${randomBytes(16).toString('base64url')}`;

/** A delivery holds its run this long: the worker's time limit in AWS (Lambda's maximum). */
export const SIMILARITY_LEASE_SECONDS = 15 * 60;

const finished = (state: SimilarityRunRecord['state']) => state === 'done' || state === 'failed';

/** Every delivery ended without finishing it (the worker was stopped): it never will. Pure. */
const isAbandoned = (record: SimilarityRunRecord, now: Date): boolean =>
  record.state === 'running' && (record.leaseUntil ?? 0) < now.getTime() && record.attempts >= SUMMARIES_JOB_MAX_DELIVERIES;

const sideView = (side: Pick<StoredPairSide, 'owner' | 'version' | 'term' | 'course' | 'gradeableId'>) => ({
  owner: side.owner,
  version: side.version,
  semester: side.term,
  course: side.course,
  gradeable_id: side.gradeableId,
});

/** The run as the routes answer it. Pure. */
export function runView(record: SimilarityRunRecord, now: Date) {
  const state = isAbandoned(record, now) ? 'failed' : record.state;
  return {
    run_id: record.runId,
    gradeable_id: record.gradeableId,
    status: state,
    created_at: record.createdAt,
    started_at: record.startedAt ?? null,
    finished_at: record.finishedAt ?? null,
    language: record.language ?? null,
    min_match_tokens: record.minMatchTokens ?? null,
    starter_files: record.starterFiles ?? record.starterCode?.length ?? 0,
    compare_with: (record.compareWith ?? []).map(({ term, course, gradeableId }) => ({
      semester: term,
      course,
      gradeable_id: gradeableId,
    })),
    requested_by: record.requestedBy,
    submissions: record.submissions ?? null,
    fingerprinted: record.fingerprinted ?? null,
    pairs_kept: record.pairs ?? null,
    fingerprints_reused: record.reused ?? null,
    skipped: record.skipped ?? null,
    skipped_versions: (record.skippedVersions ?? []).map((skipped) => ({ ...sideView(skipped), reason: skipped.reason })),
    message:
      state === 'failed'
        ? ((record.state === 'failed' ? record.message : undefined) ?? RUN_ABANDONED)
        : state === 'done'
          ? `Compared ${record.submissions ?? 0} ${record.submissions === 1 ? 'submission' : 'submissions'}; kept the ${record.pairs ?? 0} most similar ${record.pairs === 1 ? 'pair' : 'pairs'}.${record.skipped ? ` Skipped ${record.skipped} ${record.skipped === 1 ? 'version' : 'versions'} that could not be read (see skipped_versions).` : ''}`
          : state === 'running'
            ? `Fingerprinted ${record.fingerprinted ?? 0} of ${record.submissions ?? '?'} submissions.`
            : 'Waiting on the queue.',
  };
}

/** One pair as the run's page answers it. Pure. */
export const pairView = (pair: StoredPair) => ({
  pair_id: String(pair.rank),
  rank: pair.rank,
  left: sideView(pair.left),
  right: sideView(pair.right),
  similarity: pair.similarity,
  longest_fragment: pair.longestFragment,
  total_overlap: pair.totalOverlap,
  revision: pair.revision,
  decision: pair.decision
    ? { decision: pair.decision.decision, note: pair.decision.note, decided_by: pair.decision.by, decided_at: pair.decision.at }
    : null,
});

/** The language a request names, as stored (lower case, `c++` as cpp); undefined: each file's extension's. Pure. */
export function runLanguage(language: string | undefined): string | undefined {
  if (language === undefined || language.trim() === '') return undefined;
  const named = language
    .trim()
    .toLowerCase()
    .replace(/^c\+\+$/, 'cpp');
  if (!(SIMILARITY_LANGUAGES as readonly string[]).includes(named)) throw similarityLanguageUnknown({ language });
  return named;
}

type NamedGradeable = { readonly semester: string; readonly course: string; readonly gradeable_id: string };

/**
 * The gradeables `compare_with` names, each checked: the caller an instructor of its course, its
 * term this one or one that began before, the gradeable there; repeats once. Refused naming the
 * first that is not.
 */
export async function gradeablesToCompare(
  caller: { userId: string },
  course: Course,
  gradeableId: string,
  named: readonly NamedGradeable[] | undefined,
): Promise<{ term: string; course: string; gradeableId: string }[]> {
  const unique = [...new Map((named ?? []).map((one) => [`${one.semester}/${one.course}/${one.gradeable_id}`, one])).values()];
  if (unique.length === 0) return [];
  const refs = Object.fromEntries(
    unique.flatMap((one, at) => [
      [`enrollment${at}`, enrollmentRef(one.semester, one.course, caller.userId)],
      [`term${at}`, termRef(one.semester)],
      [`gradeable${at}`, gradeableRef(one.semester, one.course, one.gradeable_id)],
    ]),
  );
  const read = (await getItems({ ...refs, ownTerm: termRef(course.term) })) as Record<string, unknown>;
  const ownTerm = read.ownTerm as Term | undefined;
  return unique.map((one, at) => {
    if (one.semester === course.term && one.course === course.course && one.gradeable_id === gradeableId) throw compareWithItself();
    const enrollment = read[`enrollment${at}`] as Enrollment | undefined;
    if (enrollment?.group !== courseGroups.instructor) throw compareCourseNotYours({ semester: one.semester, course: one.course });
    const term = read[`term${at}`] as Term | undefined;
    if (term && ownTerm && term.startDate > ownTerm.startDate) throw compareTermLater({ semester: one.semester });
    if (read[`gradeable${at}`] === undefined)
      throw compareGradeableNotFound({ gradeable_id: one.gradeable_id, semester: one.semester, course: one.course });
    return { term: one.semester, course: one.course, gradeableId: one.gradeable_id };
  });
}

/** What `POST …/similarity` reads with the token check: the gradeable. */
export const similarityRunRequestReads = (params: { semester: string; course: string; gradeable_id: string }) => ({
  gradeable: gradeableRef(params.semester, params.course, params.gradeable_id),
});

/** `POST …/similarity`: the run recorded and queued, answered at once. */
export async function requestSimilarityRun(
  context: {
    caller: { userId: string };
    course: Course;
    gradeableId: string;
    gradeable: GradeableDocument | undefined;
    body: {
      language?: string | undefined;
      starter_code?: StarterFile[] | undefined;
      min_match_tokens?: number | undefined;
      compare_with?: NamedGradeable[] | undefined;
    };
  },
  now = new Date(),
) {
  const { caller, course, gradeableId, gradeable, body } = context;
  if (!gradeable) throw similarityGradeableNotFound({ gradeable_id: gradeableId });
  const language = runLanguage(body.language);
  const compareWith = await gradeablesToCompare(caller, course, gradeableId, body.compare_with);
  const record: SimilarityRunRecord = {
    runId: newSimilarityRunId(),
    term: course.term,
    course: course.course,
    gradeableId,
    state: 'queued',
    requestedBy: caller.userId,
    ...(language !== undefined ? { language } : {}),
    ...(body.min_match_tokens !== undefined ? { minMatchTokens: body.min_match_tokens } : {}),
    ...(body.starter_code && body.starter_code.length > 0 ? { starterCode: body.starter_code } : {}),
    ...(compareWith.length > 0 ? { compareWith } : {}),
    createdAt: now.toISOString(),
    attempts: 0,
  };
  await createSimilarityRun(record);
  const message: SimilarityRunMessage = { kind: 'similarity-run', term: course.term, course: course.course, runId: record.runId };
  try {
    await sendSummariesJob(message);
  } catch (error) {
    await finishSimilarityRun(
      course.term,
      course.course,
      record.runId,
      { state: 'failed', at: new Date().toISOString(), message: 'The run could not be queued. Ask again.' },
      undefined,
    ).catch(() => undefined);
    throw error;
  }
  return runView(record, now);
}

/** What `GET …/similarity/{run_id}` reads with the token check: the run. */
export const similarityRunReads = ({ semester, course, run_id }: { semester: string; course: string; run_id: string }) => ({
  run: similarityRunRef(semester, course, run_id),
});

/** `GET …/similarity/{run_id}`: the run, and once done a page of its pairs, most similar first; `next`: the next page's cursor. */
export async function similarityRunReport(
  params: { gradeable_id: string; run_id: string },
  run: SimilarityRunRecord | undefined,
  query: { page_size?: string | undefined; cursor?: string | undefined },
  now = new Date(),
) {
  if (!run || run.gradeableId !== params.gradeable_id) throw similarityRunNotFound({ run_id: params.run_id });
  const page = readPageRequest(query, {
    list: 'report',
    defaultSize: PAIRS_PAGE,
    keys: 1,
    accepts: ([rank]) => /^\d{1,4}$/.test(rank ?? ''),
  });
  const view = runView(run, now);
  if (!finished(run.state) || run.state === 'failed') return { data: { ...view, pairs: [], next_cursor: null }, next: null };
  const after = page.after?.[0];
  const { pairs, last } = await similarityPairsPage(run.term, run.course, run.runId, {
    size: page.size,
    after: after === undefined ? undefined : Number(after),
  });
  const lastPair = pairs.at(-1);
  const next = !last && lastPair ? encodeCursor([String(lastPair.rank)]) : null;
  return { data: { ...view, pairs: pairs.map(pairView), next_cursor: next }, next };
}

/** What `GET …/similarity` reads with the token check: the gradeable, whose runs they are. */
export const similarityRunsReads = similarityRunRequestReads;

/** A cursor's position: the last run's creation time and id. */
const CREATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const runsPageRequest = (query: { page_size?: string | undefined; cursor?: string | undefined }) =>
  readPageRequest(query, {
    list: 'list of runs',
    defaultSize: RUNS_PAGE,
    keys: 2,
    accepts: ([createdAt = '', runId = '']) => CREATED_AT.test(createdAt) && isSimilarityRunId(runId),
  });

/** A page of a gradeable's run ids, newest first, as the request asks for it. */
type RunIdsPage = Awaited<ReturnType<typeof similarityRunIdsPage>>;

/** Read alongside the token check: the page's run ids (none for a page request refused later). */
export async function similarityRunIdsAsked(
  params: { semester: string; course: string; gradeable_id: string },
  query: { page_size?: string | undefined; cursor?: string | undefined },
): Promise<RunIdsPage | undefined> {
  let page: ReturnType<typeof runsPageRequest>;
  try {
    page = runsPageRequest(query);
  } catch {
    return undefined;
  }
  return runIdsPage(params, page);
}

function runIdsPage(params: { semester: string; course: string; gradeable_id: string }, page: ReturnType<typeof runsPageRequest>) {
  const [createdAt, runId] = page.after ?? [];
  const after = createdAt !== undefined && runId !== undefined ? { createdAt, runId } : undefined;
  return similarityRunIdsPage(params.semester, params.course, params.gradeable_id, { size: page.size, after });
}

/** A run as a listing answers it: as its own route does, but for the skipped versions' list. Pure. */
function listedRunView(record: SimilarityRunRecord, now: Date) {
  const { skipped_versions: skippedVersions, ...view } = runView(record, now);
  void skippedVersions;
  return view;
}

/**
 * `GET …/similarity`: a page of the gradeable's runs, newest first, each as its own route answers
 * it but for the skipped versions' list; `next`: the next page's cursor.
 */
export async function listSimilarityRuns(
  params: { semester: string; course: string; gradeable_id: string },
  gradeable: GradeableDocument | undefined,
  query: { page_size?: string | undefined; cursor?: string | undefined },
  asked: RunIdsPage | undefined,
  now = new Date(),
) {
  if (!gradeable) throw similarityGradeableNotFound({ gradeable_id: params.gradeable_id });
  // Refuses a malformed page request, which the early read left unread.
  const page = runsPageRequest(query);
  const ids = asked ?? (await runIdsPage(params, page));
  const runs = await listedSimilarityRuns(
    params.semester,
    params.course,
    ids.runs.map(({ runId }) => runId),
  );
  const last = ids.runs.at(-1);
  const next = !ids.last && last ? encodeCursor([last.createdAt, last.runId]) : null;
  return {
    items: runs.map((run) => listedRunView(run, now)),
    next,
  };
}
