/** What `ta-grade` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { notOnTeam } from '#shared/courses/failures.ts';
import { components } from '#shared/http/answers.ts';
import { fail, gradeableNotFound, type RouteContract } from '#shared/http/contract.ts';
import { noStudent, notTaGraded, notYourSection } from '#shared/tagrading/failures.ts';

const { GradeAuditEntry, TaGrade } = components;

export const contract: RouteContract = {
  tag: 'Grading',
  data: TaGrade.extend({ history: z.array(GradeAuditEntry).describe('Every change, oldest first.') }),
  fails: [gradeableNotFound, fail(notTaGraded), fail(noStudent), fail(notYourSection), fail(notOnTeam)],
};
