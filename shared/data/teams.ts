import { gradeableKey } from './submissions.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll } from './paging.ts';
import { tableName, tables } from './tables.ts';
import { failedConditions, transactWrite } from './transactions.ts';

const table = tables.teams;

export interface TeamMembership {
  readonly teamId: string;
}

export const teamMembershipRef = (term: string, course: string, gradeableId: string, userId: string): ItemRef<TeamMembership> => ({
  table,
  key: { gradeableKey: gradeableKey(term, course, gradeableId), entry: `member#${userId}` },
  decode: (item: Item) => ({ teamId: item.teamId as string }),
});

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
          Item: { gradeableKey: key, entry: `member#${userId}`, teamId, userId },
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

/** user id → team id for every member of a gradeable's teams (one paged query). */
export async function teamsOfGradeable(term: string, course: string, gradeableId: string): Promise<Map<string, string>> {
  const items = await queryAll({
    TableName: tableName(table),
    KeyConditionExpression: 'gradeableKey = :key AND begins_with(entry, :member)',
    ExpressionAttributeValues: { ':key': gradeableKey(term, course, gradeableId), ':member': 'member#' },
  });
  return new Map(items.map((item) => [item.userId as string, item.teamId as string]));
}
