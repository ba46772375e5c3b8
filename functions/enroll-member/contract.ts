/** What `enroll-member` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import {
  accountFieldsMissing,
  badAccountField,
  badGroup,
  badSection,
  badUserId,
  gradingSectionsOfGraders,
  groupRequired,
  lastInstructor,
  memberChanged,
  tooManyGradingSections,
} from '#shared/courses/failures.ts';
import { components, string } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';

const { CourseUser } = components;

export const contract: RouteContract = {
  tag: 'Courses',
  data: CourseUser.extend({
    password: string.nullable().describe('The generated password of an account this call created, shown this once; null otherwise.'),
  }),
  fails: [
    fail(badUserId),
    fail(groupRequired),
    fail(badGroup),
    fail(badSection),
    fail(tooManyGradingSections),
    fail(gradingSectionsOfGraders),
    fail(accountFieldsMissing),
    fail(badAccountField),
    fail(lastInstructor),
    fail(memberChanged),
  ],
};
