import { courseId } from './keys.ts';
import { queryAll } from './paging.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.accessGroups;

const courseMember = (term: string, course: string) => `course#${courseId(term, course)}`;
const staffMember = (userId: string, term: string, course: string) => `staff#${userId}#${courseId(term, course)}`;

export const putCourseMembership = (accessGroup: string, term: string, course: string): TransactItem => ({
  Put: { TableName: tableName(table), Item: { accessGroup, member: courseMember(term, course) } },
});

export const deleteCourseMembership = (accessGroup: string, term: string, course: string): TransactItem => ({
  Delete: { TableName: tableName(table), Key: { accessGroup, member: courseMember(term, course) } },
});

/** Marks a user as staff of one course of the group. */
export const staffMarker = (accessGroup: string, userId: string, term: string, course: string) => ({
  accessGroup,
  member: staffMember(userId, term, course),
});

export const putStaffMarker = (accessGroup: string, userId: string, term: string, course: string): TransactItem => ({
  Put: { TableName: tableName(table), Item: staffMarker(accessGroup, userId, term, course) },
});

/**
 * The courses of the access group where the user has a staff marker (strongly consistent). A
 * marker only says where to look: who the user is in that course now, and whether the course is
 * archived or still in the group, are for the caller to read from the course and its enrollment.
 */
export async function staffCoursesInGroup(accessGroup: string, userId: string): Promise<{ term: string; course: string }[]> {
  const prefix = `staff#${userId}#`;
  const items = await queryAll({
    TableName: tableName(table),
    KeyConditionExpression: 'accessGroup = :group AND begins_with(#member, :prefix)',
    ExpressionAttributeNames: { '#member': 'member' },
    ExpressionAttributeValues: { ':group': accessGroup, ':prefix': prefix },
    ConsistentRead: true,
  });
  return items.flatMap((item) => {
    const [term, course, ...rest] = String(item.member).slice(prefix.length).split('/');
    return term && course && rest.length === 0 ? [{ term, course }] : [];
  });
}

/** Every item of an access group that belongs to one course: its membership and its staff markers. */
export async function courseItemsOfGroup(accessGroup: string, term: string, course: string) {
  const items = await queryAll({
    TableName: tableName(table),
    KeyConditionExpression: 'accessGroup = :group',
    ExpressionAttributeValues: { ':group': accessGroup },
    ConsistentRead: true,
  });
  const suffix = `#${courseId(term, course)}`;
  return items
    .map((item) => ({ accessGroup: item.accessGroup as string, member: item.member as string }))
    .filter((item) => item.member === courseMember(term, course) || (item.member.startsWith('staff#') && item.member.endsWith(suffix)));
}

export const accessGroupsTableName = () => tableName(table);

/** Puts or removes a user's staff marker of one course of the group. */
export const writeStaffMarker = (accessGroup: string, userId: string, term: string, course: string, staff: boolean): TransactItem =>
  staff
    ? putStaffMarker(accessGroup, userId, term, course)
    : { Delete: { TableName: tableName(table), Key: staffMarker(accessGroup, userId, term, course) } };
