/** What the cross-cutting tests expect of `replace-gradeable` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import { openDates } from '../../test/support/dates.ts';
import { publicGradeableJson, publicVcs } from '../../test/support/gradeables.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  // The gradeable as read, its gates (closed and opened by UpdateItem), what it holds, the audit entry,
  // and the outbox entry of the linked LMS courses' check of its totals.
  policy: [
    ...COURSE_CHECK,
    ...['BatchGetItem', 'UpdateItem'].map((action) => `dynamodb:${action} gradeables`),
    'dynamodb:Query submissions',
    'dynamodb:Query teams',
    'dynamodb:PutItem audit',
    'dynamodb:PutItem webhookOutbox',
  ],
  // Changing gradeables: course instructors only. A gradeable that does not exist keeps the world as it is.
  authorization: [
    {
      variation: 'a gradeable that does not exist',
      request: (world) => {
        const id = world.unique('hw');
        return { params: { gradeable_id: id }, body: { id, title: 'Matrix homework', type: 'Electronic File' } };
      },
      expect: { ...instructorOnly, instructor: fail('Gradeable does not exist', 404) },
    },
  ],
  // The homework's gradeable JSON again, as it was uploaded.
  validBody: (world) =>
    publicGradeableJson(world.homework, { title: 'Hostile homework', vcs: publicVcs('org/hw-{$user_id}'), dates: openDates(2) }),
};
