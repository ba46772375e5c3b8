/** What the cross-cutting tests expect of `archive-course` (test/hardening/test-rows.ts says which tests, and how). */
import { U, fail, everyone } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK, COURSE_CHANGE } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [...COURSE_CHECK, ...COURSE_CHANGE],
  // Archiving: the course's instructors and superusers; a course that does not exist is not found, whoever asks.
  authorization: [
    {
      variation: 'a course that does not exist',
      request: (world) => ({ params: { course: world.unique('c') } }),
      expect: { ...everyone(fail('Failed to load course. Check course title and ensure it exists.', 404)), anonymous: U },
    },
  ],
  // Archiving would take the world away from the other routes: a course that does not exist.
  fuzzedPath: () => ({ course: 'no_such_course' }),
  // It takes no body.
  validBody: () => ({}),
};
