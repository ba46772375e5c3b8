import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { courseId } from '#shared/courses/course.ts';
import { dynamo } from '#shared/data/client.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { daysFromNow, openDates } from './dates.ts';
import { anyRepository } from './shared-git.ts';

/**
 * Changes a stored gradeable's JSON where the API keeps it: gradeables cannot be changed over HTTP
 * (an upload of an existing id is refused), but an instructor's fix or a moved date is what some
 * tests are about.
 */
export async function editStoredGradeable(
  course: { term: string; course: string },
  gradeableId: string,
  edit: (document: Record<string, any>) => void, // eslint-disable-line @typescript-eslint/no-explicit-any -- a test edits any field
): Promise<void> {
  const Key = { courseId: courseId(course.term, course.course), gradeableId };
  const TableName = tableName(tables.gradeables);
  const { Item } = await dynamo().send(new GetCommand({ TableName, Key }));
  if (!Item) throw new Error(`No stored gradeable ${gradeableId}`);
  const document = JSON.parse(Item.document as string) as Record<string, unknown>;
  edit(document);
  await dynamo().send(
    new UpdateCommand({
      TableName,
      Key,
      UpdateExpression: 'SET #document = :document',
      ExpressionAttributeNames: { '#document': 'document' },
      ExpressionAttributeValues: { ':document': JSON.stringify(document) },
    }),
  );
}

/**
 * A VCS Electronic File gradeable's JSON, opened 19 days ago and due `dueInDays` from now (negative:
 * already due), grades released three days after it is due; a team gradeable of two with `team`.
 */
export function vcsGradeableJson(id: string, options: { dueInDays: number; lateDays: number; team?: boolean }): Record<string, unknown> {
  const { dueInDays: due, lateDays, team = false } = options;
  return {
    id,
    title: id,
    type: 'Electronic File',
    syllabus_bucket: 'homework',
    ...(team ? { team_gradeable: { team_size_max: 2, inherit_from: '' } } : {}),
    vcs: { repository_type: 'public-github', vcs_path: anyRepository(), vcs_subdirectory: '' },
    dates: {
      ta_view_start_date: daysFromNow(-20),
      submission_open_date: daysFromNow(-19),
      submission_due_date: daysFromNow(due),
      team_lock_date: daysFromNow(due),
      grade_start_date: daysFromNow(Math.max(due, 0) + 1),
      grade_due_date: daysFromNow(Math.max(due, 0) + 2),
      grade_released_date: daysFromNow(Math.max(due, 0) + 3),
      grade_inquiry_start_date: daysFromNow(Math.max(due, 0) + 3),
      grade_inquiry_due_date: daysFromNow(Math.max(due, 0) + 4),
      late_days: lateDays,
    },
  };
}

/** The test git server's repositories, one per gradeable and student: `<gradeable>-<user>.git`. */
export const perStudentRepositories = (gitUrl: string): string => `${gitUrl}/{$gradeable_id}-{$user_id}.git`;

/**
 * An Electronic File gradeable's JSON, open for submissions now, submitted from a self-hosted
 * repository at `vcsPath` (the API fills in `{$gradeable_id}` and `{$user_id}`); `fields` adds
 * to it or replaces (its title, autograding, …).
 */
export function selfHostedGradeableJson(id: string, vcsPath: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    title: id,
    type: 'Electronic File',
    vcs: { repository_type: 'self-hosted', vcs_path: vcsPath, vcs_subdirectory: '' },
    dates: openDates(),
    ...fields,
  };
}
