/**
 * Brings items written before the denormalized copies up to date (`npm run admin -- backfill`):
 * a student's own submissions get their `byStudent` keys, team member entries the copies of their
 * team submission, enrollment items their member and listing copies and students their place in
 * the gradebook's order (`sectionOrder`, the `bySection` index key), and course jobs still queued or
 * running their place in the `byUnfinished` index (so the sweep finds them), and similarity runs their
 * listing entry (so their gradeable's list shows them). Safe while the service runs:
 * every write is conditioned on the source it was made from being unchanged, and a write whose
 * source changed meanwhile is skipped (whoever changed it wrote the copies itself). Running it
 * again writes nothing.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { CourseGradeable } from '#shared/ids.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { dynamo } from '#shared/data/client.ts';
import {
  fillCopies,
  listingCopyOf,
  memberCopyOf,
  revisionOf,
  sourceUnchanged,
  storedCopy,
  type CopyFill,
  type CopyHolder,
  type ListingCopy,
  type MemberCopy,
} from '#shared/data/enrollment-copies.ts';
import { decodeCourse } from '#shared/data/courses.ts';
import { copyHolder, sectionOrder } from '#shared/data/enrollments.ts';
import { getItems, type Item, type ItemRef } from '#shared/data/items.ts';
import { scanAll } from '#shared/data/paging.ts';
import { activeVersionIs, setStudentLateness, studentKey, type VersionSummary } from '#shared/data/submissions.ts';
import { tableName, tables, type TableDefinition } from '#shared/data/tables.ts';
import { teamSubmissionCopies } from '#shared/data/teams.ts';
import { decodeTerm } from '#shared/data/terms.ts';
import { decodeUser } from '#shared/data/users.ts';
import { UNFINISHED } from '#shared/data/course-jobs.ts';
import { GRADEBOOK_EXPORT_KIND, GRADEBOOK_EXPORT_PREFIX, GRADEBOOK_EXPORTS_PARTITION_SUFFIX } from '#shared/data/gradebook-exports.ts';
import { runListing } from '#shared/data/similarity-runs.ts';
import { SUMMARIES_JOB_KIND, SUMMARIES_JOB_PREFIX, SUMMARIES_JOBS_PARTITION_SUFFIX } from '#shared/data/summaries.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';

export interface BackfillCounts {
  scanned: number;
  updated: number;
  current: number;
  /** Left as they were because their source changed between the read and the write. */
  skipped: number;
  /** Left as they were for want of what to copy (their gradeable, team entry, user, course or term is gone). */
  orphaned: number;
}

const zero = (): BackfillCounts => ({ scanned: 0, updated: 0, current: 0, skipped: 0, orphaned: 0 });

export function summaryLine(counts: BackfillCounts): string {
  return (
    `Backfill: ${counts.scanned} items scanned, ${counts.updated} updated, ${counts.current} already current, ` +
    `${counts.skipped} skipped by a concurrent change, ${counts.orphaned} without a source to copy.`
  );
}

/** The term, course and gradeable of a `gradeableKey` (`<term>/<course>/<gradeable id>`; codes hold no slash). */
export function parseGradeableKey(key: string): CourseGradeable {
  const [term = '', course = '', ...rest] = key.split('/');
  return { term, course, gradeableId: rest.join('/') };
}

/** What a submission item's lateness copy should be: its active version and that version's days late (none when 0). */
export function activeLatenessOf(item: Item): { activeVersion: number; daysLate: number | undefined } {
  const activeVersion = (item.activeVersion as number | undefined) ?? 0;
  const versions = (item.versions as VersionSummary[] | undefined) ?? [];
  const daysLate = activeVersion > 0 ? versions[activeVersion - 1]?.daysLate : undefined;
  return { activeVersion, daysLate };
}

/**
 * Whether a student's own submission item lacks what the `byStudent` index needs. Items with no
 * version (made by TA grading alone) are current without it: their first version writes it.
 */
export function studentSubmissionNeedsBackfill(item: Item, expectedStudentKey: string): boolean {
  if (((item.highestVersion as number | undefined) ?? 0) === 0) return false;
  const { activeVersion, daysLate } = activeLatenessOf(item);
  const storedDaysLate = item.activeDaysLate as number | undefined;
  return item.studentKey !== expectedStudentKey || (activeVersion > 0 ? storedDaysLate !== daysLate : storedDaysLate !== undefined);
}

/** Whether a team member entry lacks (or disagrees with) the copies of its team and team submission. */
export function memberEntryNeedsCopies(
  entry: Item,
  expected: { studentKey: string; gradeableId: string; members: readonly string[]; activeVersion: number; daysLate: number | undefined },
): boolean {
  const members = entry.members as string[] | undefined;
  const daysLate = expected.activeVersion > 0 ? expected.daysLate : undefined;
  return (
    entry.studentKey !== expected.studentKey ||
    entry.gradeableId !== expected.gradeableId ||
    !members ||
    members.length !== expected.members.length ||
    members.some((member, index) => member !== expected.members[index]) ||
    entry.activeVersion !== expected.activeVersion ||
    (entry.activeDaysLate as number | undefined) !== daysLate
  );
}

export async function backfill(): Promise<BackfillCounts> {
  const counts = zero();
  await backfillSubmissions(counts);
  await backfillTeamEntries(counts);
  await backfillEnrollments(counts);
  await backfillSectionOrder(counts);
  await backfillSummariesTable(counts);
  return counts;
}

/** The summaries table is read once (it holds every student's summaries) for its course jobs and similarity runs. */
async function backfillSummariesTable(counts: BackfillCounts): Promise<void> {
  const items = await scanAll({
    TableName: tableName(tables.summaries),
    ProjectionExpression: 'courseId, entry, #state, #unfinished, gradeableId, createdAt',
    ExpressionAttributeNames: { '#state': 'state', '#unfinished': UNFINISHED },
  });
  await backfillCourseJobs(items, counts);
  await backfillRunListings(items, counts);
}

/**
 * Similarity runs written before runs were listed get their listing entry. A run and its entry
 * never change once written, so the entry is put only where none is: a concurrent put of the same
 * entry leaves it as it is, counted as skipped.
 */
async function backfillRunListings(items: readonly Item[], counts: BackfillCounts): Promise<void> {
  const TableName = tableName(tables.summaries);
  const listed = new Set<string>();
  const runs: Item[] = [];
  for (const item of items) {
    const { run, listed: entry } = runListing(item);
    if (entry !== undefined) listed.add(`${String(item.courseId)}|${entry}`);
    if (run !== undefined) runs.push(run);
  }
  for (const listing of runs) {
    counts.scanned++;
    if (listed.has(`${String(listing.courseId)}|${String(listing.entry)}`)) {
      counts.current++;
      continue;
    }
    try {
      await dynamo().send(new PutCommand({ TableName, Item: listing, ConditionExpression: 'attribute_not_exists(entry)' }));
      counts.updated++;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      counts.skipped++;
    }
  }
}

/**
 * The course jobs written before the `byUnfinished` index, by where they are kept. Similarity runs
 * are not among them: they were always written with it.
 */
const COURSE_JOB_KINDS = [
  { partitionSuffix: SUMMARIES_JOBS_PARTITION_SUFFIX, entryPrefix: SUMMARIES_JOB_PREFIX, kind: SUMMARIES_JOB_KIND },
  { partitionSuffix: GRADEBOOK_EXPORTS_PARTITION_SUFFIX, entryPrefix: GRADEBOOK_EXPORT_PREFIX, kind: GRADEBOOK_EXPORT_KIND },
] as const;

/**
 * What a summaries-table item's `unfinished` attribute should be: for a course job (COURSE_JOB_KINDS),
 * its kind while it is queued or running and none once it ended; `false` for any other item.
 */
export function unfinishedMarkerOf(item: Item): string | undefined | false {
  const partition = String(item.courseId ?? '');
  const entry = String(item.entry ?? '');
  const job = COURSE_JOB_KINDS.find(
    ({ partitionSuffix, entryPrefix }) => partition.endsWith(partitionSuffix) && entry.startsWith(entryPrefix),
  );
  if (!job) return false;
  return item.state === 'queued' || item.state === 'running' ? job.kind : undefined;
}

/**
 * Course jobs get the `byUnfinished` key their state calls for, provided their state is still the
 * one read: a job that moved on meanwhile was written whole by whatever moved it.
 */
async function backfillCourseJobs(items: readonly Item[], counts: BackfillCounts): Promise<void> {
  const TableName = tableName(tables.summaries);
  for (const item of items) {
    const expected = unfinishedMarkerOf(item);
    if (expected === false) continue;
    counts.scanned++;
    if (item[UNFINISHED] === expected) {
      counts.current++;
      continue;
    }
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName,
          Key: { courseId: item.courseId as string, entry: item.entry as string },
          UpdateExpression: expected === undefined ? 'REMOVE #unfinished' : 'SET #unfinished = :kind',
          ConditionExpression: '#state = :state',
          ExpressionAttributeNames: { '#state': 'state', '#unfinished': UNFINISHED },
          ExpressionAttributeValues: { ':state': item.state, ...(expected === undefined ? {} : { ':kind': expected }) },
        }),
      );
      counts.updated++;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      counts.skipped++;
    }
  }
}

/**
 * Students with a section get their `sectionOrder` (anyone else loses a stale one), provided their
 * group and section are still those read; an item changed since was written whole by its change.
 * Counted as scanned, updated, current or skipped like the other items (the enrollments twice: once
 * for their copies, once here).
 */
async function backfillSectionOrder(counts: BackfillCounts): Promise<void> {
  const TableName = tableName(tables.enrollments);
  const items = await scanAll({
    TableName,
    ProjectionExpression: 'courseId, userId, #group, registrationSection, sectionOrder',
    ExpressionAttributeNames: { '#group': 'group' },
  });
  for (const item of items) {
    counts.scanned++;
    const expected = sectionOrderOf(item);
    if (item.sectionOrder === expected) {
      counts.current++;
      continue;
    }
    const section = item.registrationSection as string | null | undefined;
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName,
          Key: { courseId: item.courseId as string, userId: item.userId as string },
          UpdateExpression: expected === undefined ? 'REMOVE sectionOrder' : 'SET sectionOrder = :order',
          ConditionExpression: `#group = :group AND ${section === undefined ? 'attribute_not_exists(registrationSection)' : 'registrationSection = :section'}`,
          ExpressionAttributeNames: { '#group': 'group' },
          ExpressionAttributeValues: {
            ':group': item.group,
            ...(section === undefined ? {} : { ':section': section }),
            ...(expected === undefined ? {} : { ':order': expected }),
          },
        }),
      );
      counts.updated++;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      counts.skipped++;
    }
  }
}

/** What an enrollment item's `sectionOrder` should be (as enrollmentItem writes it). */
export function sectionOrderOf(item: Item): string | undefined {
  const section = item.registrationSection as string | null | undefined;
  return item.group === 4 && typeof section === 'string' ? sectionOrder(section, item.userId as string) : undefined;
}

/** Reads each gradeable once: whether it is a team gradeable (undefined when it is gone). */
function gradeableKinds() {
  const cache = new Map<string, Promise<boolean | undefined>>();
  return (term: string, course: string, gradeableId: string): Promise<boolean | undefined> => {
    const key = `${term}/${course}/${gradeableId}`;
    let kind = cache.get(key);
    if (!kind) {
      kind = getItems({ gradeable: gradeableRef(term, course, gradeableId) }).then(({ gradeable }) =>
        gradeable ? Boolean((gradeable as GradeableDocument).team_gradeable) : undefined,
      );
      cache.set(key, kind);
    }
    return kind;
  };
}

async function backfillSubmissions(counts: BackfillCounts): Promise<void> {
  const isTeamGradeable = gradeableKinds();
  const items = await scanAll({
    TableName: tableName(tables.submissions),
    ProjectionExpression: 'gradeableKey, ownerId, studentKey, highestVersion, activeVersion, activeDaysLate, versions',
  });
  for (const item of items) {
    counts.scanned++;
    const { term, course, gradeableId } = parseGradeableKey(item.gradeableKey as string);
    const ownerId = item.ownerId as string;
    const team = await isTeamGradeable(term, course, gradeableId);
    if (team === undefined) {
      counts.orphaned++;
      continue;
    }
    if (team || !studentSubmissionNeedsBackfill(item, studentKey(term, course, ownerId))) {
      counts.current++;
      continue;
    }
    const write = setStudentLateness({ term, course, gradeableId, ownerId }, activeLatenessOf(item)).Update;
    try {
      await dynamo().send(new UpdateCommand(write as UpdateCommandInput));
      counts.updated++;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      counts.skipped++;
    }
  }
}

async function backfillTeamEntries(counts: BackfillCounts): Promise<void> {
  const items = await scanAll({ TableName: tableName(tables.teams) });
  const teamMembers = new Map<string, string[]>();
  const memberEntries = new Map<string, Item[]>();
  for (const item of items) {
    const entry = item.entry as string;
    const teamKey = (teamId: string) => `${item.gradeableKey as string}\n${teamId}`;
    if (entry.startsWith('team#')) teamMembers.set(teamKey(entry.slice('team#'.length)), item.members as string[]);
    else if (entry.startsWith('member#')) {
      counts.scanned++;
      const key = teamKey(item.teamId as string);
      memberEntries.set(key, [...(memberEntries.get(key) ?? []), item]);
    }
  }
  for (const [key, entries] of memberEntries) {
    const [gradeableKey = ''] = key.split('\n');
    const first = entries[0] as Item;
    const teamId = first.teamId as string;
    const members = teamMembers.get(key) ?? (first.members as string[] | undefined);
    if (!members) {
      counts.orphaned += entries.length;
      continue;
    }
    const { term, course, gradeableId } = parseGradeableKey(gradeableKey);
    const submissionKey = { gradeableKey, ownerId: teamId };
    const { submission } = await getItems({ submission: rawRef(tables.submissions, submissionKey) });
    const active = activeLatenessOf(submission ?? {});
    const lacking = entries
      .map((entry) => (entry.entry as string).slice('member#'.length))
      .filter((userId, index) =>
        memberEntryNeedsCopies(entries[index] as Item, {
          studentKey: studentKey(term, course, userId),
          gradeableId,
          members,
          ...active,
        }),
      );
    counts.current += entries.length - lacking.length;
    if (lacking.length === 0) continue;
    try {
      await transactWrite([
        activeVersionIs(submissionKey, active.activeVersion),
        ...teamSubmissionCopies(
          { term, course, gradeableId, ownerId: teamId },
          members,
          { version: active.activeVersion, daysLate: active.daysLate },
          lacking,
        ),
      ]);
      counts.updated += lacking.length;
    } catch (error) {
      if (failedConditions(error).length === 0) throw error;
      counts.skipped += lacking.length;
    }
  }
}

const rawRef = (table: TableDefinition, key: Record<string, string>): ItemRef<Item> => ({ table, key, decode: (item) => item });

/**
 * Enrollment items without copies get them through fillCopies, each guarded by the revision of
 * every source it copies (enrollment-copies.ts): a source changed since it was read drops the fill.
 */
async function backfillEnrollments(counts: BackfillCounts): Promise<void> {
  const enrollmentsTable = tableName(tables.enrollments);
  const items = await scanAll({
    TableName: enrollmentsTable,
    ProjectionExpression: 'courseId, userId, term, course, memberCopy, listingCopy',
  });
  const lackingMember = new Map<string, CopyHolder[]>();
  const lackingListing = new Map<string, { term: string; course: string; holders: CopyHolder[] }>();
  /** courseId and user id → how many copies the item lacks. */
  const wanted = new Map<string, number>();
  for (const item of items) {
    counts.scanned++;
    const holder = copyHolder({ term: item.term as string, course: item.course as string, userId: item.userId as string });
    const needsMember = !storedCopy(item.memberCopy);
    const needsListing = !storedCopy(item.listingCopy);
    if (needsMember) lackingMember.set(holder.key.userId, [...(lackingMember.get(holder.key.userId) ?? []), holder]);
    if (needsListing) {
      const course = lackingListing.get(holder.key.courseId) ?? { term: item.term as string, course: item.course as string, holders: [] };
      course.holders.push(holder);
      lackingListing.set(holder.key.courseId, course);
    }
    if (needsMember || needsListing) wanted.set(`${holder.key.courseId}\n${holder.key.userId}`, Number(needsMember) + Number(needsListing));
    else counts.current++;
  }
  if (wanted.size === 0) return;

  const usersTable = tableName(tables.users);
  const userIds = [...lackingMember.keys()];
  const users = await getItems(Object.fromEntries(userIds.map((userId) => [userId, rawRef(tables.users, { userId })])));
  const memberFills: CopyFill[] = [];
  for (const userId of userIds) {
    const user = users[userId];
    const holders = lackingMember.get(userId) ?? [];
    if (!user) continue;
    const copy: MemberCopy = memberCopyOf(decodeUser(user));
    memberFills.push({
      checks: [sourceUnchanged(revisionOf(usersTable, { userId }, user), true)],
      holders: holders.map((holder) => ({ holder, copy })),
    });
  }

  const coursesTable = tableName(tables.courses);
  const termsTable = tableName(tables.terms);
  const listings = [...lackingListing.values()];
  const refs: Record<string, ItemRef<Item>> = {};
  for (const { term, course } of listings) {
    refs[`course:${term}/${course}`] = rawRef(tables.courses, { term, course });
    refs[`term:${term}`] = rawRef(tables.terms, { termId: term });
  }
  const sources = await getItems(refs);
  const listingFills: CopyFill[] = [];
  for (const { term, course, holders } of listings) {
    const courseItem = sources[`course:${term}/${course}`];
    const termItem = sources[`term:${term}`];
    // As the course's own changes do: without its term a listing is not copied.
    if (!courseItem || !termItem) continue;
    const copy: ListingCopy = listingCopyOf(decodeCourse(courseItem), decodeTerm(termItem));
    listingFills.push({
      checks: [
        sourceUnchanged(revisionOf(coursesTable, { term, course }, courseItem), true),
        sourceUnchanged(revisionOf(termsTable, { termId: term }, termItem), true),
      ],
      holders: holders.map((holder) => ({ holder, copy })),
    });
  }

  // An item lacking both copies counts once: skipped if either fill was dropped, orphaned if either had no source.
  const memberResult = await fillCopies('memberCopy', memberFills);
  const listingResult = await fillCopies('listingCopy', listingFills);
  const keyOf = (holder: CopyHolder) => `${holder.key.courseId}\n${holder.key.userId}`;
  const dropped = new Set([...memberResult.dropped, ...listingResult.dropped].map(keyOf));
  const filled = new Map<string, number>();
  for (const holder of [...memberResult.filled, ...listingResult.filled]) filled.set(keyOf(holder), (filled.get(keyOf(holder)) ?? 0) + 1);
  for (const [key, needed] of wanted) {
    if (dropped.has(key)) counts.skipped++;
    else if ((filled.get(key) ?? 0) === needed) counts.updated++;
    else counts.orphaned++;
  }
}
