import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'api-docs-asset',
  method: 'GET',
  path: '/api/docs/{asset}',
  access: 'public',
  summary: 'The reference page’s script and style sheet (versioned names, cached for a year).',
});
