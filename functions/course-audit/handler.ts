import { courseId } from '#shared/courses/course.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { auditPage } from '#shared/users/audit.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: async ({ course, query, url }) => {
    const { items, next } = await auditPage({ courseId: courseId(course.term, course.course) }, query);
    return paged(url, items, next);
  },
});
