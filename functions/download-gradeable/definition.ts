import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'download-gradeable',
  method: 'GET',
  path: '/api/{semester}/{course}/{gradeable_id}/download',
  access: 'course:instructor-or-group-staff',
  summary:
    "The gradeable JSON, ready to upload again (into another course too) or to change with PUT (its ETag goes in If-Match). Hidden test cases' command and expect reach instructors only: others get them left out, marked hidden_test_cases_redacted.",
  data: { gradeables: ['BatchGetItem'] },
  etag: true,
});
