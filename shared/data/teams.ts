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

export const teamMembershipRef = (term: string, course: string, gradeableId: string, userId: string): ItemRef<TeamMembership> => ({
  table,
  key: { gradeableKey: gradeableKey(term, course, gradeableId), entry: `member#${userId}` },
  decode: (item: Item) => ({ teamId: item.teamId as string, ...(item.members ? { members: item.members as string[] } : {}) }),
});

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
 * to name the team (it is never created here). `entries`: the members whose entries to write (all
 * by default; the backfill writes only those lacking a copy).
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
      ConditionExpression: 'teamId = :teamId',
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
