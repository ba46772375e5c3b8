/** What `create-course` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import {
  accessGroupNeedsSuperuser,
  badAccessGroup,
  baseCourseNeeded,
  badCourseTitle,
  badSemester,
  courseExistsAlready,
  courseFieldsMissing,
  instructorNotInGroup,
  invalidBaseCourse,
  noHeadInstructor,
  noSuchSemester,
  notForYourself,
  tooManyGradeablesToCopy,
} from '#shared/courses/failures.ts';
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';

const { Course } = components;

export const contract: RouteContract = {
  tag: 'Courses',
  data: Course,
  fails: [
    fail(courseFieldsMissing),
    fail(badSemester),
    fail(badCourseTitle),
    fail(badAccessGroup),
    fail(invalidBaseCourse),
    fail(notForYourself),
    fail(baseCourseNeeded),
    fail(accessGroupNeedsSuperuser),
    fail(noHeadInstructor),
    fail(noSuchSemester),
    fail(courseExistsAlready),
    fail(instructorNotInGroup),
    fail(tooManyGradeablesToCopy),
  ],
};
