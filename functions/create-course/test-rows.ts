/** What the cross-cutting tests expect of `create-course` (test/hardening/test-rows.ts says which tests, and how). */
import { A, D, U, NOT_GROUP, everyone } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...TOKEN_CHECK,
    ...['BatchGetItem', 'ConditionCheckItem', 'PutItem'].map((action) => `dynamodb:${action} courses`),
    ...['BatchGetItem', 'PutItem'].map((action) => `dynamodb:${action} enrollments`),
    ...['Query', 'PutItem'].map((action) => `dynamodb:${action} accessGroups`),
    ...['Query', 'PutItem'].map((action) => `dynamodb:${action} gradeables`),
    // The head instructor's copies of the profile and the term are checked against their sources.
    'dynamodb:ConditionCheckItem terms',
    'dynamodb:ConditionCheckItem users',
    'dynamodb:BatchGetItem terms',
  ],
  authorization: [
    {
      variation: 'for themselves (superusers: for the instructor) from this course',
      request: (world, persona) => ({
        body: {
          course_semester: world.term,
          course_title: world.unique('new'),
          head_instructor: persona === 'superuser' || persona === 'anonymous' ? world.userIds.instructor : world.userIds[persona],
          base_course_semester: world.term,
          base_course_title: world.course,
        },
      }),
      expect: {
        ...everyone(D),
        anonymous: U,
        instructor: A,
        otherInstructor: NOT_GROUP,
        archivedGroupInstructor: NOT_GROUP,
        faculty: NOT_GROUP,
        superuser: A,
      },
    },
  ],
  validBody: (world) => ({
    course_semester: world.term,
    course_title: world.unique('fz'),
    head_instructor: world.userIds.instructor,
    base_course_semester: world.term,
    base_course_title: world.course,
    copy_gradeables: false,
  }),
};
