import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/data/client.ts';
import { gradeableKey, studentKey } from '#shared/data/submissions.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import type { Submission, TestCaseResult, VersionSummary } from '#shared/submissions/submission.ts';
import { daysFromNow } from './dates.ts';

/** A visible test case's result: `points` received of 10, unless `fields` says otherwise. */
export const testCase = (points: number, fields: Partial<TestCaseResult> = {}): TestCaseResult => ({
  name: 'a',
  details: '',
  is_extra_credit: false,
  points_available: 10,
  has_extra_results: false,
  points_received: points,
  testcase_message: '',
  autochecks: [],
  hidden: false,
  ...fields,
});

/**
 * A submission as the submissions table keeps it: amy's of hw1 in course f26/cs1 with `versions`,
 * the first of them active and the highest, unless `fields` says otherwise.
 */
export const submissionRecord = (versions: VersionSummary[], fields: Partial<Submission> = {}): Submission => ({
  term: 'f26',
  course: 'cs1',
  gradeableId: 'hw1',
  ownerId: 'amy',
  highestVersion: 1,
  activeVersion: 1,
  versions,
  ...fields,
});

export interface GradedSubmission {
  readonly term: string;
  readonly course: string;
  readonly gradeableId: string;
  readonly userId: string;
  readonly points: number;
  readonly daysLate?: number;
  /** Submitted this many days from now (twelve days ago by default). */
  readonly submittedDaysFromNow?: number;
  /** With the active version's results: one test case of 10 points, `points` of them received. */
  readonly withResults?: boolean;
}

/**
 * A student's own submission with one graded, active version, as the worker leaves it (what
 * addVersion and the worker write, the `byStudent` index keys included): written directly, to
 * build courses faster than submitting and grading would.
 */
export function gradedSubmissionItem(submission: GradedSubmission): Record<string, unknown> {
  const { term, course, gradeableId, userId, points, daysLate = 0, submittedDaysFromNow = -12 } = submission;
  return {
    gradeableKey: gradeableKey(term, course, gradeableId),
    ownerId: userId,
    term,
    course,
    gradeableId,
    studentKey: studentKey(term, course, userId),
    highestVersion: 1,
    activeVersion: 1,
    activeDaysLate: daysLate,
    versions: [
      { version: 1, submittedAt: daysFromNow(submittedDaysFromNow), submittedBy: userId, daysLate, ticket: 1, state: 'graded', points },
    ],
    ...(submission.withResults ? { activeResults: { version: 1, testCases: [testCase(points)] } } : {}),
  };
}

export async function putGradedSubmission(submission: GradedSubmission): Promise<void> {
  await dynamo().send(new PutCommand({ TableName: tableName(tables.submissions), Item: gradedSubmissionItem(submission) }));
}
