/**
 * The words a function's expected IAM policy (`policy` in `functions/<name>/test-rows.ts`) is
 * stated in: grants as `action resource` pairs, the resource named by what it is (a table key such
 * as `enrollments/index/byUser`, `signingSecret`, `gradingQueue`, `submissionsBucket/uploads/*`),
 * and the groups of grants many functions share. test/infra/stack.test.ts compares each function's
 * role with them.
 */

/** Checking a password: what a login does with the credentials table (the hash, the failed attempts). */
export const CREDENTIALS = ['ConditionCheckItem', 'DeleteItem', 'PutItem', 'Query', 'UpdateItem'].map(
  (action) => `dynamodb:${action} credentials`,
);
/** The token check: one BatchGetItem of the session and the caller's profile, and the signing secret. */
export const TOKEN_CHECK = ['dynamodb:BatchGetItem sessions', 'dynamodb:BatchGetItem users', 'secretsmanager:GetSecretValue signingSecret'];
/** On course routes the same BatchGetItem reads the course and the caller's enrollment. */
export const COURSE_CHECK = [...TOKEN_CHECK, 'dynamodb:BatchGetItem courses', 'dynamodb:BatchGetItem enrollments'];
/** Routes open to access-group staff ask the access group when the caller is not staff of the course. */
export const GROUP_CHECK = [...COURSE_CHECK, 'dynamodb:Query accessGroups'];
/** A course field the courses list copies onto enrollments: the course in steps, the copies, the term they include, the audit entry. */
export const COURSE_CHANGE = [
  ...['UpdateItem', 'GetItem', 'ConditionCheckItem'].map((action) => `dynamodb:${action} courses`),
  'dynamodb:Query enrollments',
  'dynamodb:UpdateItem enrollments',
  'dynamodb:GetItem terms',
  'dynamodb:ConditionCheckItem terms',
  'dynamodb:PutItem audit',
];
export const SUBMISSION_READS = ['gradeables', 'teams', 'submissions', 'jobs'].map((table) => `dynamodb:BatchGetItem ${table}`);
/** What a student's standing reads besides (values' lateness fields): the course's gradeables and the student's active days late on each. */
export const STANDING_QUERIES = [
  'dynamodb:Query gradeables',
  ...['submissions', 'teams'].map((table) => `dynamodb:Query ${table}/index/byStudent`),
];
/** values: the standing's queries and the student's late-day item. */
export const STANDING_READS = ['dynamodb:BatchGetItem lateDays', ...STANDING_QUERIES];
