/** The most points a gradeable gives, as pure functions (the gradebook's columns, TA grading and the LMS's line items agree on them). */
import type { GradeableDocument } from './gradeable.ts';

const round = (value: number) => Math.round(value * 10_000) / 10_000;

/** The most points TA grading gives: the sum of the rubric components' max_value. */
export const rubricMaximum = (gradeable: Pick<GradeableDocument, 'rubric'>): number =>
  round(gradeable.rubric.reduce((sum, component) => sum + component.max_value, 0));

/**
 * The most points a gradeable gives, as staff see it: every test case's points but extra credit's,
 * hidden ones included (staff see hidden test cases' scores), plus the rubric's.
 */
export const gradeableMaxPoints = (document: Pick<GradeableDocument, 'rubric' | 'autograding'>): number =>
  round(
    (document.autograding?.test_cases ?? []).filter((test) => !test.is_extra_credit).reduce((sum, test) => sum + test.points_available, 0) +
      rubricMaximum(document),
  );
