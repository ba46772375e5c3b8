import * as z from 'zod/mini';
import { courseChangeData, route } from '#shared/http/routes.ts';
import { scalar, text } from '#shared/http/fields.ts';

export const definition = route({
  name: 'set-course-config',
  method: 'POST',
  path: '/api/courses/{semester}/{course}/config',
  access: 'course:instructor',
  summary: 'Set one setting of the course: name (course_name, default_student_late_days or timezone) and entry; answers the settings.',
  data: courseChangeData(),
  input: () => ({
    body: {
      name: z.optional(text(64, { description: 'The setting: `course_name`, `default_student_late_days` or `timezone`.' })),
      entry: z.optional(
        scalar({
          description: 'Its value: a display name (1 to 100 characters), a whole number of late days (0 to 1000), or an IANA time zone.',
        }),
      ),
    },
  }),
});
