/** What `save-ta-grade` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { notOnTeam } from '#shared/courses/failures.ts';
import { gradeableBusy } from '#shared/gradeables/failures.ts';
import { components } from '#shared/http/answers.ts';
import { fail, gradeableNotFound, type RouteContract } from '#shared/http/contract.ts';
import {
  componentMissing,
  customPointsBeyondSpan,
  gradeableChangedWhileGrading,
  gradeChanged,
  gradeRace,
  gradingNotStarted,
  markTwice,
  noComponent,
  noMark,
  noStudent,
  notTaGraded,
  notYourSection,
} from '#shared/tagrading/failures.ts';

const { TaGrade } = components;

export const contract: RouteContract = {
  tag: 'Grading',
  data: TaGrade,
  fails: [
    gradeableNotFound,
    fail(notTaGraded),
    fail(noStudent),
    fail(notYourSection),
    fail(notOnTeam),
    fail(gradingNotStarted),
    fail(componentMissing),
    fail(noComponent),
    fail(noMark),
    fail(markTwice),
    fail(customPointsBeyondSpan),
    fail(gradeChanged),
    fail(gradeRace),
    fail(gradeableBusy),
    fail(gradeableChangedWhileGrading),
  ],
};
