import { courseId } from '#shared/courses/course.ts';
import type { GradingResults, Submission, VersionSummary } from '#shared/submissions/submission.ts';
import type { Item, ItemRef } from './items.ts';
import { queryAll } from './paging.ts';
import { tableName, tables } from './tables.ts';
import type { TransactItem } from './transactions.ts';

const table = tables.submissions;

export const gradeableKey = (term: string, course: string, gradeableId: string) => `${courseId(term, course)}/${gradeableId}`;

const decode = (item: Item): Submission => ({
  term: item.term as string,
  course: item.course as string,
  gradeableId: item.gradeableId as string,
  ownerId: item.ownerId as string,
  highestVersion: item.highestVersion as number,
  activeVersion: item.activeVersion as number,
  versions: item.versions as VersionSummary[],
  activeResults: item.activeResults as GradingResults | undefined,
});

export const submissionRef = (term: string, course: string, gradeableId: string, ownerId: string): ItemRef<Submission> => ({
  table,
  key: { gradeableKey: gradeableKey(term, course, gradeableId), ownerId },
  decode,
});

/**
 * Adds version `summary.version` and makes it active, provided the highest version is still the
 * one read: concurrent submissions of one owner each get their own number.
 */
export function addVersion(owner: { term: string; course: string; gradeableId: string; ownerId: string }, summary: VersionSummary): TransactItem {
  const previous = summary.version - 1;
  return {
    Update: {
      TableName: tableName(table),
      Key: { gradeableKey: gradeableKey(owner.term, owner.course, owner.gradeableId), ownerId: owner.ownerId },
      UpdateExpression:
        'SET term = :term, course = :course, gradeableId = :gradeableId, highestVersion = :version, activeVersion = :version, ' +
        'versions = list_append(if_not_exists(versions, :empty), :summary) REMOVE activeResults',
      ConditionExpression: previous === 0 ? 'attribute_not_exists(highestVersion)' : 'highestVersion = :previous',
      ExpressionAttributeValues: {
        ':term': owner.term,
        ':course': owner.course,
        ':gradeableId': owner.gradeableId,
        ':version': summary.version,
        ':summary': [summary],
        ':empty': [],
        ...(previous === 0 ? {} : { ':previous': previous }),
      },
    },
  };
}

/** Records a version's grading state (and points) in its summary. */
export function setVersionState(
  key: { gradeableKey: string; ownerId: string },
  version: number,
  update: { state: VersionSummary['state']; points?: number; message?: string; activeResults?: GradingResults },
): TransactItem {
  const index = version - 1;
  const names: Record<string, string> = { '#state': 'state' };
  const values: Record<string, unknown> = { ':state': update.state, ':version': version };
  const sets = [`versions[${index}].#state = :state`];
  if (update.points !== undefined) {
    sets.push(`versions[${index}].points = :points`);
    values[':points'] = update.points;
  }
  if (update.message !== undefined) {
    sets.push(`versions[${index}].message = :message`);
    values[':message'] = update.message;
  }
  if (update.activeResults) {
    sets.push('activeResults = :results');
    values[':results'] = update.activeResults;
  }
  return {
    Update: {
      TableName: tableName(table),
      Key: key,
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: update.activeResults ? 'activeVersion = :version' : 'highestVersion >= :version',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
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
