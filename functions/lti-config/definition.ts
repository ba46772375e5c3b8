import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'lti-config',
  method: 'GET',
  path: '/api/lti/config',
  access: 'public',
  summary:
    "The LTI tool's configuration for manual set-up (Canvas's JSON configuration; the tool's URLs are on the host the request reached).",
});
