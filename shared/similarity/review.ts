/**
 * Reviewing a run's pairs: `GET …/similarity/{run_id}/pairs/{pair_id}` answers one pair's shared
 * fragments file by file, each side's lines with their text, so that a reviewer reads the passages
 * side by side; `PATCH` the same path records the reviewer's decision (dismissed or confirmed, with
 * a note), who and when, in one transaction with its entry in the course's audit trail, and only
 * while the pair is still at the revision the reviewer read. Nothing is penalised automatically.
 */
import { auditEntry } from '#shared/data/audit.ts';
import { courseId } from '#shared/data/keys.ts';
import {
  decideSimilarityPair,
  similarityPairRef,
  type StoredFragmentSide,
  type StoredPair,
  type StoredPairSide,
} from '#shared/data/similarity-runs.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { fingerprintSourcesKey, versionFilesKey } from '#shared/storage/keys.ts';
import { getObjectBytes, listObjects } from '#shared/storage/objects.ts';
import { decisionUnknown, similarityPairChanged, similarityPairNotFound, similarityPairRace } from './failures.ts';
import { MAX_COMPARED_FILE_BYTES, MAX_SHOWN_LINES, textOf } from './limits.ts';
import { pairView } from './runs.ts';

export const DECISIONS = ['dismissed', 'confirmed'] as const;
export type Decision = (typeof DECISIONS)[number];

/** What both pair routes read with the token check: the pair. */
export const similarityPairReads = (params: { semester: string; course: string; run_id: string; pair_id: string }) => ({
  pair: similarityPairRef(params.semester, params.course, params.run_id, Number(params.pair_id)),
});

/** The pair the path names, or its refusal: a pair of another gradeable's run reads as none. Pure. */
function pairOfPath(params: { gradeable_id: string; run_id: string; pair_id: string }, pair: StoredPair | undefined): StoredPair {
  if (!pair || pair.left.gradeableId !== params.gradeable_id)
    throw similarityPairNotFound({ pair_id: params.pair_id, run_id: params.run_id });
  return pair;
}

/** Lines `first`–`last` (from 1, both included) of `text`, at most MAX_SHOWN_LINES of them. Pure. */
export function linesOf(text: string, first: number, last: number): string[] {
  return text.split(/\r\n|\r|\n/).slice(Math.max(0, first - 1), Math.min(last, first - 1 + MAX_SHOWN_LINES));
}

/**
 * The texts of one side's files by path, as a reader of one file at a time: an uploaded version's
 * stored files, or the texts a run kept of a repository version's commit (read once for the
 * pair). A file answers undefined once it is gone (the term's versions or fingerprints expired)
 * or is not text.
 */
function sideTexts(side: StoredPairSide): (path: string) => Promise<string | undefined> {
  const folder = { term: side.term, course: side.course, gradeable: side.gradeableId, submitter: side.owner };
  if (side.commit !== undefined) {
    const key = fingerprintSourcesKey(folder, side.commit);
    let kept: Promise<Map<string, string>> | undefined;
    const read = async () => {
      // Listed first: S3 answers a missing key 403, not 404, to a role whose ListBucket is limited to a prefix.
      const listed = (await listObjects(key)).some((object) => object.key === key);
      const bytes = listed ? await getObjectBytes(key) : undefined;
      const files = bytes === undefined ? [] : (JSON.parse(bytes.toString('utf8')) as { files: { path: string; text: string }[] }).files;
      return new Map(files.map(({ path, text }) => [path, text]));
    };
    return async (path) => (await (kept ??= read())).get(path);
  }
  return async (path) => {
    if (side.filesId === '') return undefined;
    const bytes = await getObjectBytes(versionFilesKey(folder, side.filesId, path), MAX_COMPARED_FILE_BYTES);
    return bytes === undefined ? undefined : textOf(bytes);
  };
}

/** `GET …/pairs/{pair_id}`: the pair, and its fragments with each side's lines. */
export async function similarityPairDetail(
  params: { gradeable_id: string; run_id: string; pair_id: string },
  stored: StoredPair | undefined,
) {
  const pair = pairOfPath(params, stored);
  const texts = new Map<string, Promise<string | undefined>>();
  const readers = { left: sideTexts(pair.left), right: sideTexts(pair.right) };
  const text = (which: 'left' | 'right', path: string) => {
    const key = `${which}/${path}`;
    let read = texts.get(key);
    if (read === undefined) texts.set(key, (read = readers[which](path)));
    return read;
  };
  const shown = async (which: 'left' | 'right', side: StoredFragmentSide) => {
    const whole = await text(which, side.path);
    return { ...side, lines: whole === undefined ? null : linesOf(whole, side.first_line, side.last_line) };
  };
  const fragments = await Promise.all(
    pair.fragments.map(async (fragment) => ({ left: await shown('left', fragment.left), right: await shown('right', fragment.right) })),
  );
  return { ...pairView(pair), fragments };
}

/** `PATCH …/pairs/{pair_id}`: the decision recorded with its audit entry while the pair is at `revision`; the pair as it now is. */
export async function decideSimilarityPairOf(
  context: {
    caller: { userId: string };
    params: { semester: string; course: string; gradeable_id: string; run_id: string; pair_id: string };
    pair: StoredPair | undefined;
    body: { decision: string; note?: string | undefined; revision: number };
  },
  now = new Date(),
) {
  const { caller, params, body } = context;
  const pair = pairOfPath(params, context.pair);
  if (!(DECISIONS as readonly string[]).includes(body.decision)) throw decisionUnknown({ decision: body.decision });
  if (body.revision !== pair.revision) throw similarityPairChanged({ revision: String(body.revision), current: String(pair.revision) });
  const decision = { decision: body.decision as Decision, note: body.note ?? '', by: caller.userId, at: now.toISOString() };
  const write = decideSimilarityPair(params.semester, params.course, pair, decision);
  const audit = auditEntry(
    { courseId: courseId(params.semester, params.course) },
    {
      actor: caller.userId,
      action: 'similarity-pair.decided',
      target: `${params.gradeable_id}/${params.run_id}/${pair.rank}`,
      ...(pair.decision ? { before: { decision: pair.decision.decision, note: pair.decision.note, revision: pair.revision } } : {}),
      after: { decision: decision.decision, note: decision.note, revision: pair.revision + 1 },
    },
    now,
  );
  try {
    await transactWrite([write, audit]);
  } catch (error) {
    if (failedConditions(error).includes(0)) throw similarityPairRace();
    throw error;
  }
  return pairView({ ...pair, decision, revision: pair.revision + 1 });
}
