import { courseId } from './keys.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll } from './paging.ts';
import { tableName, tables, type TableDefinition } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.submissions;

/** `superseded`: a newer version of the same owner was submitted while it was still queued, so it is not graded (unless regraded). */
export type VersionState = 'queued' | 'grading' | 'graded' | 'failed' | 'superseded';

/** The summary of one version kept on the submission item. */
export interface VersionSummary {
  readonly version: number;
  readonly submittedAt: string;
  readonly submittedBy: string;
  readonly daysLate: number;
  /** Queue ticket of its grading job. */
  readonly ticket: number;
  readonly state: VersionState;
  /** The points of its test cases that are not hidden: what its student sees until grades are released. */
  readonly points?: number;
  /** The points of its hidden test cases (none recorded before they were kept apart). */
  readonly hiddenPoints?: number;
  readonly message?: string;
  /**
   * The commit its first grading checked out, recorded before anything ran: every later grading
   * (a regrade, a retry) checks out exactly this commit. None before the first checkout, and for
   * a local folder without history.
   */
  readonly commit?: string;
  /** The address of the repository it was submitted from (a version from git), which its regrades check out from. */
  readonly repository?: string;
  /** A files version's files id: its files are stored under it (shared/storage/keys.ts). */
  readonly files?: string;
}

/** One test case of `values`, in the reference's shape (docs/reference-compatibility.md). */
export interface TestCaseResult {
  readonly name: string;
  readonly details: string;
  readonly is_extra_credit: boolean;
  readonly points_available: number;
  readonly has_extra_results: boolean;
  readonly points_received: number;
  readonly testcase_message: string;
  readonly autochecks: readonly unknown[];
  /** Left out of what students see. */
  readonly hidden: boolean;
}

export interface GradingResults {
  readonly version: number;
  readonly testCases: readonly TestCaseResult[];
}

export interface ComponentGrade {
  readonly mark_ids: readonly number[];
  readonly custom_points: number;
  readonly custom_message: string;
  readonly grader_id: string;
  readonly graded_at: string;
}

/** Kept on the submission item: one read with everything else `values` reads. */
export interface TaGrade {
  /** Keyed by component id (its place in the rubric, as a string). */
  readonly components: Readonly<Record<string, ComponentGrade>>;
  /** Bumped by every change; the audit entry of a change has the new revision. */
  readonly revision: number;
}

export interface Submission {
  readonly term: string;
  readonly course: string;
  readonly gradeableId: string;
  readonly ownerId: string;
  readonly highestVersion: number;
  readonly activeVersion: number;
  readonly versions: readonly VersionSummary[];
  /** Results of the active version, once graded. */
  readonly activeResults?: GradingResults;
  /** The TA grade, once a grader recorded one. */
  readonly taGrade?: TaGrade;
}

export const gradeableKey = (term: string, course: string, gradeableId: string) => `${courseId(term, course)}/${gradeableId}`;

/** A submission item's key: its gradeable's `gradeableKey` and its owner (a student or a team). */
export interface SubmissionKey {
  readonly gradeableKey: string;
  readonly ownerId: string;
}

/**
 * The `byStudent` index key of a student's items in a course (`<courseId>#<userId>`): their own
 * submissions, and their entries on teams (teams.ts), so a student's late days are two Queries.
 * Items written before the index existed lack it and are backfilled once on deployment
 * (`npm run admin -- backfill`, infra/admin/backfill.ts): every
 * individual submission item (ownerId a user id) gets `studentKey` and `activeDaysLate` (the days
 * late of its active version, absent when the active version is 0); every team member entry gets
 * `studentKey`, `gradeableId`, `members`, and a copy of its team submission's `activeVersion` and
 * `activeDaysLate`.
 */
export const studentKey = (term: string, course: string, userId: string) => `${courseId(term, course)}#${userId}`;

/** Whose a submission is: a student's own (listed in the `byStudent` index), or a team's. */
export type OwnerKind = 'student' | 'team';

/** What late days read of one submission: its active version and that version's days late (undefined when none is active). */
export interface ActiveLateness {
  readonly gradeableId: string;
  readonly activeVersion: number;
  readonly daysLate: number | undefined;
}

/** Decodes an item carrying `activeVersion` and `activeDaysLate` (a submission, or a team member entry's copy). */
const decodeLateness = (item: Item): ActiveLateness => {
  const activeVersion = (item.activeVersion as number | undefined) ?? 0;
  return {
    gradeableId: item.gradeableId as string,
    activeVersion,
    daysLate: activeVersion > 0 ? (item.activeDaysLate as number | undefined) : undefined,
  };
};

/** The attributes of a `byStudent` Query that late days need. */
const LATENESS_PROJECTION = 'gradeableId, activeVersion, activeDaysLate';

const decode = (item: Item): Submission => ({
  term: item.term as string,
  course: item.course as string,
  gradeableId: item.gradeableId as string,
  ownerId: item.ownerId as string,
  // An item made by TA grading alone (Checkpoints, Numeric, or before any version) has no versions.
  highestVersion: (item.highestVersion as number | undefined) ?? 0,
  activeVersion: (item.activeVersion as number | undefined) ?? 0,
  versions: (item.versions as VersionSummary[] | undefined) ?? [],
  activeResults: item.activeResults as GradingResults | undefined,
  ...(item.taGrade ? { taGrade: item.taGrade as TaGrade } : {}),
});

export const submissionRef = (term: string, course: string, gradeableId: string, ownerId: string): ItemRef<Submission> => ({
  table,
  key: { gradeableKey: gradeableKey(term, course, gradeableId), ownerId },
  decode,
});

/**
 * Adds version `summary.version` and makes it active, provided the highest version is still the
 * one read: concurrent submissions of one owner each get their own number. A student's own
 * submission is listed in the `byStudent` index; a team's is not (its members' entries carry a
 * copy instead: see teamSubmissionCopies in teams.ts, written in the same transaction).
 * `supersedes`: a queued version it replaces, marked `superseded` (its job in the same transaction).
 */
export function addVersion(
  owner: { term: string; course: string; gradeableId: string; ownerId: string },
  summary: VersionSummary,
  ownerKind: OwnerKind = 'student',
  supersedes?: number,
): TransactItem {
  const previous = summary.version - 1;
  const student = ownerKind === 'student';
  // A list_append would overlap the superseded element's path: the new element is set by its index (one past the end).
  const appending =
    supersedes === undefined
      ? 'versions = list_append(if_not_exists(versions, :empty), :summary)'
      : `versions[${summary.version - 1}] = :element, versions[${supersedes - 1}].#state = :superseded`;
  return {
    Update: {
      TableName: tableName(table),
      Key: { gradeableKey: gradeableKey(owner.term, owner.course, owner.gradeableId), ownerId: owner.ownerId },
      UpdateExpression:
        'SET term = :term, course = :course, gradeableId = :gradeableId, highestVersion = :version, activeVersion = :version, ' +
        `activeDaysLate = :daysLate, ${student ? 'studentKey = :studentKey, ' : ''}` +
        `${appending} REMOVE activeResults`,
      ConditionExpression: previous === 0 ? 'attribute_not_exists(highestVersion)' : 'highestVersion = :previous',
      ...(supersedes === undefined ? {} : { ExpressionAttributeNames: { '#state': 'state' } }),
      ExpressionAttributeValues: {
        ':term': owner.term,
        ':course': owner.course,
        ':gradeableId': owner.gradeableId,
        ':version': summary.version,
        ':daysLate': summary.daysLate,
        ...(supersedes === undefined ? { ':summary': [summary], ':empty': [] } : { ':element': summary, ':superseded': 'superseded' }),
        ...(student ? { ':studentKey': studentKey(owner.term, owner.course, owner.ownerId) } : {}),
        ...(previous === 0 ? {} : { ':previous': previous }),
      },
    },
  };
}

/** The active version and its days late of every submission of a student's own in a course (the `byStudent` index; teams' are not in it). */
export const latenessOfStudent = (term: string, course: string, userId: string): Promise<ActiveLateness[]> =>
  latenessByStudent(table, term, course, userId);

/** The lateness entries a table's `byStudent` index lists for a student of a course (submissions, or team member entries). */
export async function latenessByStudent(indexed: TableDefinition, term: string, course: string, userId: string): Promise<ActiveLateness[]> {
  const items = await queryAll({
    TableName: tableName(indexed),
    IndexName: 'byStudent',
    KeyConditionExpression: 'studentKey = :key',
    ExpressionAttributeValues: { ':key': studentKey(term, course, userId) },
    ProjectionExpression: LATENESS_PROJECTION,
  });
  return items.map(decodeLateness);
}

/**
 * Passes while a submission's active version is still `version` (0: none, or no submission item at
 * all): guards writes of copies made from it.
 */
export function activeVersionIs(key: SubmissionKey, version: number): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(table),
      Key: key,
      ...activeVersionCondition(version),
    },
  };
}

const activeVersionCondition = (version: number) =>
  version === 0
    ? {
        ConditionExpression: 'attribute_not_exists(activeVersion) OR activeVersion = :version',
        ExpressionAttributeValues: { ':version': 0 },
      }
    : { ConditionExpression: 'activeVersion = :version', ExpressionAttributeValues: { ':version': version } };

/**
 * Lists a student's own submission written before the `byStudent` index in it (the backfill): its
 * `studentKey`, and its active version's days late (none when the active version is 0), provided
 * the active version is still the one read, so a concurrent submission or choice of version (which
 * write both themselves) is never overwritten.
 */
export function setStudentLateness(
  owner: { term: string; course: string; gradeableId: string; ownerId: string },
  read: { activeVersion: number; daysLate: number | undefined },
): TransactItem {
  const withDaysLate = read.activeVersion > 0 && read.daysLate !== undefined;
  const { ConditionExpression, ExpressionAttributeValues } = activeVersionCondition(read.activeVersion);
  return {
    Update: {
      TableName: tableName(table),
      Key: { gradeableKey: gradeableKey(owner.term, owner.course, owner.gradeableId), ownerId: owner.ownerId },
      UpdateExpression: `SET studentKey = :studentKey${withDaysLate ? ', activeDaysLate = :daysLate' : ' REMOVE activeDaysLate'}`,
      ConditionExpression: `attribute_exists(ownerId) AND (${ConditionExpression})`,
      ExpressionAttributeValues: {
        ...ExpressionAttributeValues,
        ':studentKey': studentKey(owner.term, owner.course, owner.ownerId),
        ...(withDaysLate ? { ':daysLate': read.daysLate } : {}),
      },
    },
  };
}

/** Records a version's grading state (and points) in its summary. */
export function setVersionState(
  key: SubmissionKey,
  version: number,
  update: { state: VersionSummary['state']; points?: number; hiddenPoints?: number; message?: string; activeResults?: GradingResults },
): TransactItem {
  const index = version - 1;
  const names: Record<string, string> = { '#state': 'state' };
  const values: Record<string, unknown> = { ':state': update.state, ':version': version };
  const sets = [`versions[${index}].#state = :state`];
  if (update.points !== undefined) {
    sets.push(`versions[${index}].points = :points`);
    values[':points'] = update.points;
  }
  if (update.hiddenPoints !== undefined) {
    sets.push(`versions[${index}].hiddenPoints = :hiddenPoints`);
    values[':hiddenPoints'] = update.hiddenPoints;
  }
  if (update.message !== undefined) {
    sets.push(`versions[${index}].message = :message`);
    values[':message'] = update.message;
  }
  if (update.activeResults) {
    sets.push('activeResults = :results');
    values[':results'] = update.activeResults;
  }
  // A version graded again (a regrade) keeps no message of an earlier failure.
  const removes = update.state === 'graded' && update.message === undefined ? ` REMOVE versions[${index}].message` : '';
  return {
    Update: {
      TableName: tableName(table),
      Key: key,
      UpdateExpression: `SET ${sets.join(', ')}${removes}`,
      ConditionExpression: update.activeResults ? 'activeVersion = :version' : 'highestVersion >= :version',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * Records the commit a version's grading checked out, provided the version records none yet (or
 * this one): a version's commit never changes once recorded.
 */
export function recordVersionCommit(key: SubmissionKey, version: number, commit: string): TransactItem {
  const index = version - 1;
  return {
    Update: {
      TableName: tableName(table),
      Key: key,
      UpdateExpression: `SET versions[${index}].#commit = :commit`,
      ConditionExpression: `highestVersion >= :version AND (attribute_not_exists(versions[${index}].#commit) OR versions[${index}].#commit = :commit)`,
      ExpressionAttributeNames: { '#commit': 'commit' },
      ExpressionAttributeValues: { ':commit': commit, ':version': version },
    },
  };
}

/**
 * Queues a graded (failed, superseded) version again under a new ticket (a regrade), provided it is not
 * queued or being graded already. Its points and results stay as they are until the new ones.
 */
export function requeueVersion(key: SubmissionKey, version: number, ticket: number): TransactItem {
  const index = version - 1;
  return {
    Update: {
      TableName: tableName(table),
      Key: key,
      UpdateExpression: `SET versions[${index}].#state = :queued, versions[${index}].ticket = :ticket`,
      ConditionExpression: `versions[${index}].#state IN (:graded, :failed, :superseded)`,
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':queued': 'queued',
        ':ticket': ticket,
        ':graded': 'graded',
        ':failed': 'failed',
        ':superseded': 'superseded',
      },
    },
  };
}

/** Every submission of a gradeable (one paged query). */
export async function submissionsOfGradeable(term: string, course: string, gradeableId: string): Promise<Submission[]> {
  const items = await queryAll({
    TableName: tableName(table),
    KeyConditionExpression: 'gradeableKey = :key',
    ExpressionAttributeValues: { ':key': gradeableKey(term, course, gradeableId) },
  });
  return items.map(decode);
}

/**
 * Makes `version` the active version (0: none, the submission cancelled) with its results and its
 * days late (`read.daysLate`, the chosen version's), provided nothing changed since the read: no new
 * version, and the chosen version still in the grading state read (a worker finishing it meanwhile
 * would otherwise leave it active without its results).
 */
export function setActiveVersion(
  key: SubmissionKey,
  read: { highestVersion: number; state?: VersionSummary['state']; daysLate?: number | undefined },
  version: number,
  results: GradingResults | undefined,
): TransactItem {
  const values: Record<string, unknown> = { ':version': version, ':highest': read.highestVersion };
  const names: Record<string, string> = {};
  let condition = 'highestVersion = :highest';
  if (version > 0) {
    condition += ` AND versions[${version - 1}].#state = :state`;
    names['#state'] = 'state';
    values[':state'] = read.state;
  }
  if (results) values[':results'] = results;
  const sets = ['activeVersion = :version'];
  const removes: string[] = [];
  if (results) sets.push('activeResults = :results');
  else removes.push('activeResults');
  if (version > 0 && read.daysLate !== undefined) {
    sets.push('activeDaysLate = :daysLate');
    values[':daysLate'] = read.daysLate;
  } else removes.push('activeDaysLate');
  return {
    Update: {
      TableName: tableName(table),
      Key: key,
      UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ConditionExpression: condition,
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    },
  };
}
