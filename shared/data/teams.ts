import { gradeableKey, latenessByStudent, studentKey, type ActiveLateness } from './submissions.ts';
import { getItems, type Item, type ItemRef } from './items.ts';
import { queryAll } from './paging.ts';
import { tableName, tables } from './tables.ts';
import { failedConditions, transactWrite, type TransactItem } from './transactions.ts';

const table = tables.teams;

export interface TeamMembership {
  readonly teamId: string;
  /** Every member of the team (the member's own id included); absent on entries written before it was kept there. */
  readonly members?: readonly string[];
}

const decodeMembership = (item: Item): TeamMembership => ({
  teamId: item.teamId as string,
  ...(item.members ? { members: item.members as string[] } : {}),
});

export const teamMembershipRef = (term: string, course: string, gradeableId: string, userId: string): ItemRef<TeamMembership> => ({
  table,
  key: { gradeableKey: gradeableKey(term, course, gradeableId), entry: `member#${userId}` },
  decode: decodeMembership,
});

/**
 * The team of `userId` on each of the gradeables named, by gradeable id (gradeables where they are
 * on no team are left out): one batched read of their membership entries.
 */
export async function teamsOfMember(
  term: string,
  course: string,
  gradeableIds: readonly string[],
  userId: string,
): Promise<Map<string, string>> {
  if (gradeableIds.length === 0) return new Map();
  const keys = gradeableIds.map((gradeableId) => teamMembershipRef(term, course, gradeableId, userId).key);
  const { memberships } = await getItems({
    memberships: { table, keys, decodeAll: (items) => items.map((item) => item && decodeMembership(item)) },
  });
  return new Map(
    gradeableIds.flatMap((gradeableId, index) => {
      const membership = memberships[index];
      return membership ? [[gradeableId, membership.teamId] as const] : [];
    }),
  );
}

/** A team's entry, which lists its members. */
export const teamRef = (term: string, course: string, gradeableId: string, teamId: string): ItemRef<{ members: readonly string[] }> => ({
  table,
  key: { gradeableKey: gradeableKey(term, course, gradeableId), entry: `team#${teamId}` },
  decode: (item: Item) => ({ members: item.members as string[] }),
});

/**
 * The members of a member's team: from their membership entry, or (an entry written before the
 * entries named the members) from the team's entry, a read more.
 */
export async function teamMembers(
  team: { term: string; course: string; gradeableId: string },
  membership: TeamMembership,
): Promise<readonly string[]> {
  if (membership.members) return membership.members;
  const { entry } = await getItems({ entry: teamRef(team.term, team.course, team.gradeableId, membership.teamId) });
  if (!entry) throw new Error(`The team ${membership.teamId} of ${team.gradeableId} has a member but no entry`);
  return entry.members;
}

/**
 * What every change of a team submission's active version writes in its own transaction: each
 * member's entry gets a copy of the active version and its days late (`daysLate`; none when the
 * version is 0), which a member's late days read through the `byStudent` index. The entries are
 * (re)keyed for the index too, so entries older than the index are listed after their team's next
 * change (with the team's `members`, which older entries lack too). Each update requires the entry
 * to name the team (it is never created here) and, when it lists members, these members: a team
 * changed since `members` was read (a member added meanwhile) cancels the transaction, whose
 * writer reads the members again, instead of leaving the newcomer without the copy. `entries`: the
 * members whose entries to write (all by default; the backfill writes only those lacking a copy).
 */
export function teamSubmissionCopies(
  owner: { term: string; course: string; gradeableId: string; ownerId: string },
  members: readonly string[],
  active: { version: number; daysLate: number | undefined },
  entries: readonly string[] = members,
): TransactItem[] {
  const TableName = tableName(table);
  const key = gradeableKey(owner.term, owner.course, owner.gradeableId);
  const withDaysLate = active.version > 0 && active.daysLate !== undefined;
  return entries.map((userId) => ({
    Update: {
      TableName,
      Key: { gradeableKey: key, entry: `member#${userId}` },
      UpdateExpression:
        'SET studentKey = :studentKey, gradeableId = :gradeableId, members = :members, activeVersion = :version' +
        (withDaysLate ? ', activeDaysLate = :daysLate' : ' REMOVE activeDaysLate'),
      ConditionExpression: 'teamId = :teamId AND (attribute_not_exists(members) OR members = :members)',
      ExpressionAttributeValues: {
        ':studentKey': studentKey(owner.term, owner.course, userId),
        ':gradeableId': owner.gradeableId,
        ':members': [...members],
        ':version': active.version,
        ':teamId': owner.ownerId,
        ...(withDaysLate ? { ':daysLate': active.daysLate } : {}),
      },
    },
  }));
}

/** Creates a team and its memberships together; false when the team or a member's membership exists. */
export async function createTeam(
  term: string,
  course: string,
  gradeableId: string,
  teamId: string,
  members: readonly string[],
): Promise<boolean> {
  const key = gradeableKey(term, course, gradeableId);
  const TableName = tableName(table);
  try {
    await transactWrite([
      {
        Put: {
          TableName,
          Item: { gradeableKey: key, entry: `team#${teamId}`, teamId, members: [...members] },
          ConditionExpression: 'attribute_not_exists(entry)',
        },
      },
      ...members.map((userId) => ({
        Put: {
          TableName,
          // Listed in the `byStudent` index from the start: nothing submitted yet (activeVersion 0).
          Item: {
            gradeableKey: key,
            entry: `member#${userId}`,
            teamId,
            userId,
            members: [...members],
            studentKey: studentKey(term, course, userId),
            gradeableId,
            activeVersion: 0,
          },
          ConditionExpression: 'attribute_not_exists(entry)',
        },
      })),
    ]);
    return true;
  } catch (error) {
    if (failedConditions(error).length > 0) return false;
    throw error;
  }
}

/** The active version and its days late of each team submission of a student's teams in a course (copies on their member entries). */
export const teamLatenessOfStudent = (term: string, course: string, userId: string): Promise<ActiveLateness[]> =>
  latenessByStudent(table, term, course, userId);

/** user id → team id for every member of a gradeable's teams (one paged query). */
export async function teamsOfGradeable(term: string, course: string, gradeableId: string): Promise<Map<string, string>> {
  const items = await queryAll({
    TableName: tableName(table),
    KeyConditionExpression: 'gradeableKey = :key AND begins_with(entry, :member)',
    ExpressionAttributeValues: { ':key': gradeableKey(term, course, gradeableId), ':member': 'member#' },
  });
  return new Map(items.map((item) => [item.userId as string, item.teamId as string]));
}

/** A team's entry as lists show it. */
export interface TeamEntry {
  readonly teamId: string;
  readonly members: readonly string[];
}

/** Every team of a gradeable (one paged query of the team entries), by team id. */
export async function teamsOfGradeableList(term: string, course: string, gradeableId: string): Promise<TeamEntry[]> {
  const items = await queryAll({
    TableName: tableName(table),
    KeyConditionExpression: 'gradeableKey = :key AND begins_with(entry, :team)',
    ExpressionAttributeValues: { ':key': gradeableKey(term, course, gradeableId), ':team': 'team#' },
  });
  return items
    .map((item) => ({ teamId: item.teamId as string, members: item.members as string[] }))
    .sort((a, b) => (a.teamId < b.teamId ? -1 : a.teamId > b.teamId ? 1 : 0));
}

/** The active version of a team's submission, which its members' entries copy; none: nothing submitted. */
export interface TeamSubmissionState {
  readonly highestVersion: number;
  readonly activeVersion: number;
  readonly activeDaysLate: number | undefined;
}

/** A change of one team's members, as teams.ts in shared/courses decided it, with what it was decided on. */
export interface TeamMembersWrite {
  readonly teamId: string;
  readonly members: readonly string[];
  /** The team's members as read; none: the team is created. */
  readonly before: readonly string[] | undefined;
  /** The team each new member's entry named as read (none: no entry). */
  readonly entryTeams: ReadonlyMap<string, string | undefined>;
  readonly removed: readonly string[];
  /** The team's submission as read (none: nothing submitted, which the transaction requires still). */
  readonly submission: TeamSubmissionState | undefined;
  /** Other teams losing members: their members as read and those who remain (none: the team is deleted; it has no submission). */
  readonly shrunk: readonly { readonly teamId: string; readonly before: readonly string[]; readonly remaining: readonly string[] }[];
}

const submissionsTable = tables.submissions;

/** Requires a team's submission to be as read: absent, or with the same highest and active versions. */
function submissionAsRead(key: string, teamId: string, submission: TeamSubmissionState | undefined): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(submissionsTable),
      Key: { gradeableKey: key, ownerId: teamId },
      ...(submission
        ? {
            ConditionExpression: 'highestVersion = :highest AND activeVersion = :active',
            ExpressionAttributeValues: { ':highest': submission.highestVersion, ':active': submission.activeVersion },
          }
        : { ConditionExpression: 'attribute_not_exists(ownerId)' }),
    },
  };
}

/** Requires a team entry to list exactly the members read (absent: not to exist). */
const teamCondition = (before: readonly string[] | undefined) =>
  before
    ? { ConditionExpression: 'members = :before', ExpressionAttributeValues: { ':before': [...before] } }
    : { ConditionExpression: 'attribute_not_exists(entry)' };

/**
 * The transaction of a team change (the audit entries added by the caller): the team's entry, every
 * member's entry (with the team's members and a copy of its submission's active version), the
 * entries of members who leave, the teams that lose members, each conditional on what was read, so
 * a concurrent change of any of them (another team change, a submission) cancels it instead of
 * putting a student on two teams or leaving a copy stale.
 */
export function teamMembersItems(
  gradeable: { term: string; course: string; gradeableId: string },
  change: TeamMembersWrite,
): TransactItem[] {
  const TableName = tableName(table);
  const key = gradeableKey(gradeable.term, gradeable.course, gradeable.gradeableId);
  const active = change.submission?.activeVersion ?? 0;
  const daysLate = active > 0 ? change.submission?.activeDaysLate : undefined;
  return [
    {
      Put: {
        TableName,
        Item: { gradeableKey: key, entry: `team#${change.teamId}`, teamId: change.teamId, members: [...change.members] },
        ...teamCondition(change.before),
      },
    },
    submissionAsRead(key, change.teamId, change.submission),
    ...change.members.map((userId): TransactItem => {
      const previous = change.entryTeams.get(userId);
      return {
        Put: {
          TableName,
          Item: {
            gradeableKey: key,
            entry: `member#${userId}`,
            teamId: change.teamId,
            userId,
            members: [...change.members],
            studentKey: studentKey(gradeable.term, gradeable.course, userId),
            gradeableId: gradeable.gradeableId,
            activeVersion: active,
            ...(daysLate !== undefined ? { activeDaysLate: daysLate } : {}),
          },
          ...(previous === undefined
            ? { ConditionExpression: 'attribute_not_exists(entry)' }
            : { ConditionExpression: 'teamId = :previous', ExpressionAttributeValues: { ':previous': previous } }),
        },
      };
    }),
    ...change.removed.map((userId): TransactItem => ({
      Delete: {
        TableName,
        Key: { gradeableKey: key, entry: `member#${userId}` },
        ConditionExpression: 'teamId = :teamId',
        ExpressionAttributeValues: { ':teamId': change.teamId },
      },
    })),
    ...change.shrunk.flatMap(({ teamId, before, remaining }): TransactItem[] => [
      submissionAsRead(key, teamId, undefined),
      remaining.length === 0
        ? { Delete: { TableName, Key: { gradeableKey: key, entry: `team#${teamId}` }, ...teamCondition(before) } }
        : {
            Update: {
              TableName,
              Key: { gradeableKey: key, entry: `team#${teamId}` },
              UpdateExpression: 'SET members = :remaining',
              ConditionExpression: 'members = :before',
              ExpressionAttributeValues: { ':remaining': [...remaining], ':before': [...before] },
            },
          },
      ...remaining.map((userId): TransactItem => ({
        Update: {
          TableName,
          Key: { gradeableKey: key, entry: `member#${userId}` },
          UpdateExpression: 'SET members = :remaining',
          ConditionExpression: 'teamId = :teamId',
          ExpressionAttributeValues: { ':remaining': [...remaining], ':teamId': teamId },
        },
      })),
    ]),
  ];
}

/** The transaction deleting a team with no submission: its entry as read, its members' entries. */
export function deleteTeamItems(gradeable: { term: string; course: string; gradeableId: string }, team: TeamEntry): TransactItem[] {
  const TableName = tableName(table);
  const key = gradeableKey(gradeable.term, gradeable.course, gradeable.gradeableId);
  return [
    { Delete: { TableName, Key: { gradeableKey: key, entry: `team#${team.teamId}` }, ...teamCondition(team.members) } },
    submissionAsRead(key, team.teamId, undefined),
    ...team.members.map((userId): TransactItem => ({
      Delete: {
        TableName,
        Key: { gradeableKey: key, entry: `member#${userId}` },
        ConditionExpression: 'teamId = :teamId',
        ExpressionAttributeValues: { ':teamId': team.teamId },
      },
    })),
  ];
}
