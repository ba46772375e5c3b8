import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { MAX_MESSAGE_LENGTH } from '#shared/tagrading/grade.ts';
import { decimal, required, scalar, text, wholeNumber, wholeNumbers } from '#shared/http/fields.ts';
import { componentMissing } from '#shared/tagrading/failures.ts';

export const definition = route({
  name: 'save-ta-grade',
  method: 'POST',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/grading/{user_id}',
  access: 'course:staff',
  summary:
    "Grade one rubric component of a student's (or their team's) TA grade: marks, custom points and comment, kept with an audit entry. Limited access graders: their sections.",
  data: {
    gradeables: ['BatchGetItem', 'ConditionCheckItem'],
    enrollments: ['BatchGetItem'],
    teams: ['BatchGetItem'],
    submissions: ['BatchGetItem', 'UpdateItem'],
    gradeAudit: ['PutItem'],
    // The grade for linked LMS courses that take scores, written with it (the outbox relay queues it).
    webhookOutbox: ['PutItem'],
  },
  input: () => ({
    body: {
      component_id: required(
        wholeNumber({
          description: 'The rubric component, by its place in the rubric (from 0).',
          mustBe: 'a whole number (a component’s place in the rubric, from 0)',
        }),
        componentMissing,
      ),
      mark_ids: z.optional(
        wholeNumbers({
          description: 'The marks applied, by their places in the component (from 0); none when left out.',
          mustBe: 'a list of whole numbers (marks’ places in the component, from 0)',
          maxItems: 50,
        }),
      ),
      custom_points: z.optional(
        decimal({
          description:
            'Points added on top of the default and the marks (may be negative; at most the span of the clamps either way); 0 when left out.',
          mustBe: 'a number',
        }),
      ),
      custom_message: z.optional(text(MAX_MESSAGE_LENGTH, { description: 'The comment the student sees once grades are released.' })),
      revision: z.optional(scalar({ description: 'The revision the grader saw: refused with 409 when the grade changed since.' })),
    },
  }),
});
