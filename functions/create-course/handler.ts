import { courseGroups, courseSummary } from '#shared/courses/course.ts';
import { baseGradeablesAsked, createCourse, newCourseReads, newCourseRequest } from '#shared/courses/create-course.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ body }) => newCourseReads(body),
  alongside: ({ body }) => baseGradeablesAsked(body),
  handle: async ({ body, caller, items, alongside }) => {
    const { course, term } = await createCourse(newCourseRequest(body), caller, { items, baseGradeables: alongside });
    return courseSummary(course, term, { group: courseGroups.instructor, registrationSection: null });
  },
});
