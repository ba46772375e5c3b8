import { gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { courseGradebook } from '#shared/gradebook/course-gradebook.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  alongside: ({ params }) => gradeablesOfCourse(params.semester, params.course),
  handle: async ({ course, enrollment, alongside, query, url }) => {
    const data = await courseGradebook(course, alongside, enrollment, query);
    return paged(url, data, data.next_cursor);
  },
});
