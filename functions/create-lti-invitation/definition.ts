import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { flag, text } from '#shared/http/fields.ts';
import { baseUrlHeaders } from '#shared/http/parameters.ts';
import { MAX_CLAIM_LENGTH, MAX_LABEL_LENGTH } from '#shared/lti/registration.ts';

export const definition = route({
  name: 'create-lti-invitation',
  method: 'POST',
  path: '/api/lti/registrations/invitations',
  access: 'superuser',
  summary:
    'Invite an LMS to register itself (LTI Dynamic Registration): data holds the URL to paste in the LMS, usable once within an hour, and what the registration it produces will say (label, user-id rule, whether first launches create accounts).',
  data: { lti: ['PutItem'] },
  input: () => ({
    headers: baseUrlHeaders(),
    body: {
      label: z.optional(
        text(MAX_LABEL_LENGTH, { description: 'What the platform is, for people; also the tool name it is registered under.' }),
      ),
      user_id_claim: z.optional(
        text(MAX_CLAIM_LENGTH, {
          description:
            'Where the user id is read from at a first launch, as for a registration entered by hand (`email`, the default; `sub`; `<claim URI>#<member>`).',
        }),
      ),
      user_id_suffix: z.optional(
        text(255, { description: 'A suffix the claim must end with, removed from the user id (`@example.edu`).' }),
      ),
      create_users: z.optional(
        flag({ description: 'Whether a first launch of someone without an account here creates it (default false).' }),
      ),
    },
  }),
});
