import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/data/client.ts';
import { gradeableKey, studentKey } from '#shared/data/submissions.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { daysFromNow } from './dates.ts';

/** A visible test case of 10 points, `points` of them received. */
export const testCase = (points: number) => ({
  name: 'a',
  details: '',
  is_extra_credit: false,
  points_available: 10,
  has_extra_results: false,
  points_received: points,
  testcase_message: '',
  autochecks: [],
  hidden: false,
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
