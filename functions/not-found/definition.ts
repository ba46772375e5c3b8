import { worker } from '#shared/http/routes.ts';

/** The `$default` route: touches nothing. */
export const definition = worker({
  name: 'not-found',
  summary: 'Every request no route matches: "Endpoint not found." or "Method not allowed."',
});
