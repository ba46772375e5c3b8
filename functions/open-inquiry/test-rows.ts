/** What the cross-cutting tests expect of `open-inquiry` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, members, type MatrixCase } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

const STUDENTS_ONLY = fail('Only a student opens a grade inquiry, about their own grade.', 403);
const staffRefused = { mentor: STUDENTS_ONLY, ta: STUDENTS_ONLY, instructor: STUDENTS_ONLY };

const authorization: MatrixCase[] = [
  {
    // The open gradeable takes no inquiries: the student is told so, staff that only students open them.
    variation: 'a gradeable without grade inquiries',
    request: (world) => ({ params: { gradeable_id: world.openGradeable }, body: { content: 'Why?' } }),
    expect: { ...members, ...staffRefused, student: fail('This gradeable takes no grade inquiries (grade_inquiries is false).', 400) },
  },
  {
    variation: 'a gradeable not yet open for students',
    request: (world) => ({ params: { gradeable_id: world.futureGradeable }, body: { content: 'Why?' } }),
    expect: { ...members, ...staffRefused, student: fail('Gradeable does not exist', 404) },
  },
];

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    'dynamodb:BatchGetItem gradeables',
    'dynamodb:BatchGetItem teams',
    // The inquiry and its slot, with the audit entry, in one transaction.
    'dynamodb:PutItem inquiries',
    'dynamodb:PutItem audit',
    // The inquiry.opened event written with it, and removed once queued.
    'dynamodb:PutItem webhookOutbox',
    'dynamodb:DeleteItem webhookOutbox',
    'sqs:SendMessage webhookQueue',
  ],
  authorization,
  validBody: () => ({ content: 'Fuzz: why did the style component lose two points?' }),
};
