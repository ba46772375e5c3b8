import { route } from '#shared/http/routes.ts';
import { CODE } from '#shared/ids.ts';
import { text } from '#shared/http/fields.ts';

export const definition = route({
  name: 'create-term',
  method: 'POST',
  path: '/api/terms',
  access: 'superuser',
  summary: 'Create a term: term_id, term_name, start_date and end_date (YYYY-MM-DD).',
  data: { terms: ['PutItem'] },
  input: () => ({
    body: {
      term_id: text(64, { description: 'The term code.', pattern: CODE }),
      term_name: text(100, { description: 'Its display name.' }),
      start_date: text(10, { description: 'First day, `YYYY-MM-DD`.', format: 'date' }),
      end_date: text(10, { description: 'Last day, `YYYY-MM-DD`.', format: 'date' }),
    },
  }),
});
