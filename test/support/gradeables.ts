import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { courseId } from '#shared/courses/course.ts';
import { dynamo } from '#shared/data/client.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { daysFromNow, openDates } from './dates.ts';
import type { CourseWorld } from './courses.ts';
import type { TestApi } from './http.ts';
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

/** A test case worth `points` that passes when `sh hello.sh` exits 0. */
export const runs = (points: number) => ({ name: 'Runs', command: 'sh hello.sh', points_available: points, expect: { exit_code: 0 } });

/** A test case worth `points` that passes when `sh hello.sh` prints Hello. */
export const greets = (points: number) => ({
  name: 'Greets',
  command: 'sh hello.sh',
  points_available: points,
  expect: { stdout_contains: 'Hello' },
});

/**
 * A gradeable's `vcs` for public GitHub repositories at `path` on the run's git server (see
 * anyRepository; `path` may hold the placeholders).
 */
export const publicVcs = (path?: string) => ({ repository_type: 'public-github', vcs_path: anyRepository(path), vcs_subdirectory: '' });

/** A gradeable's `vcs` for self-hosted repositories at `vcsPath` (which may hold the placeholders). */
export const selfHostedVcs = (vcsPath: string) => ({ repository_type: 'self-hosted', vcs_path: vcsPath, vcs_subdirectory: '' });

/**
 * A VCS Electronic File gradeable's JSON, submitted from public GitHub repositories on the run's git
 * server (any path) and open for submissions now; `fields` adds to it or replaces (its title, vcs,
 * dates, syllabus bucket, …).
 */
export function publicGradeableJson(id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, title: id, type: 'Electronic File', vcs: publicVcs(), dates: openDates(), ...fields };
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
    vcs: publicVcs(),
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
    vcs: selfHostedVcs(vcsPath),
    dates: openDates(),
    ...fields,
  };
}

/** Uploads a gradeable's JSON to the world's course (or another of its instructor's) as its instructor, and expects it accepted. */
export async function uploadGradeable(
  api: TestApi,
  world: CourseWorld,
  document: Record<string, unknown>,
  course: { term: string; course: string } = world.course,
): Promise<void> {
  const answer = await api.postJson(`/${course.term}/${course.course}/upload`, document, world.tokens.instructor);
  expect(answer.json.status, answer.text).toBe('success');
}
