import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { text } from '#shared/http/fields.ts';
import { MAX_LTI_URL_LENGTH } from '#shared/lti/registration.ts';

export const definition = route({
  name: 'lti-register',
  method: 'GET',
  path: '/api/lti/register',
  access: 'public',
  summary:
    "LTI Dynamic Registration: the LMS opens a superuser's invitation URL with its OpenID configuration and a registration token; the tool reads the configuration, registers itself at the platform and stores the registration, consuming the invitation, then answers a page that tells the LMS it is done.",
  // Checks the platform's hosts as its requests will go.
  settings: ['LTI_ALLOWED_HOSTS'],
  // The invitation read, claimed (and given back on a platform's failure), then deleted with the registration's put.
  data: { lti: ['GetItem', 'UpdateItem', 'DeleteItem', 'PutItem'] },
  input: () => ({
    query: {
      invitation: z.optional(text(64, { description: 'The invitation, from the URL a superuser was given.' })),
      openid_configuration: z.optional(
        text(MAX_LTI_URL_LENGTH, { description: "Where the platform's OpenID configuration is read (added by the LMS)." }),
      ),
      registration_token: z.optional(
        text(4096, { description: 'The bearer token the registration is sent to the platform with (added by the LMS).' }),
      ),
    },
  }),
});
