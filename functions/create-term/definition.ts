import { route } from '#shared/http/routes.ts';
import { CODE } from '#shared/ids.ts';
import { required, text } from '#shared/http/fields.ts';
import { termFieldsMissing } from '#shared/courses/failures.ts';

export const definition = route({
  name: 'create-term',
  method: 'POST',
  path: '/api/terms',
  access: 'superuser',
  summary: 'Create a term: term_id, term_name, start_date and end_date (YYYY-MM-DD).',
  data: { terms: ['PutItem'] },
  input: () => {
    // Any of the four missing or empty: the one message the reference has for them all.
    const needed = <T extends Parameters<typeof required>[0]>(field: T) => required(field, termFieldsMissing, { emptyIsMissing: true });
    return {
      body: {
        term_id: needed(text(64, { description: 'The term code.', pattern: CODE })),
        term_name: needed(text(100, { description: 'Its display name.' })),
        start_date: needed(text(10, { description: 'First day, `YYYY-MM-DD`.', format: 'date' })),
        end_date: needed(text(10, { description: 'Last day, `YYYY-MM-DD`.', format: 'date' })),
      },
    };
  },
});
