import { courseGroups, courseSummary } from '#shared/courses/course.ts';
import { createCourse, newCourseRequest } from '#shared/courses/create-course.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('create-course', {
  handle: async ({ body, caller }) => {
    const { course, term } = await createCourse(newCourseRequest(body), caller);
    return courseSummary(course, term, { group: courseGroups.instructor, registrationSection: null });
  },
});
