import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { flag, list, required, text } from '#shared/http/fields.ts';
import { baseUrlHeaders } from '#shared/http/parameters.ts';
import { registrationFieldsMissing } from '#shared/lti/failures.ts';
import {
  MAX_CLAIM_LENGTH,
  MAX_CLIENT_ID_LENGTH,
  MAX_DEPLOYMENT_IDS,
  MAX_LABEL_LENGTH,
  MAX_LTI_URL_LENGTH,
} from '#shared/lti/registration.ts';

export const definition = route({
  name: 'create-lti-registration',
  method: 'POST',
  path: '/api/lti/registrations',
  access: 'superuser',
  summary:
    "Register an LTI 1.3 platform (an LMS) by its issuer and client id, with its endpoints; data holds the registration and the tool's URLs to enter in the LMS.",
  // Checks the platform's hosts as its requests will go.
  settings: ['LTI_ALLOWED_HOSTS'],
  data: { lti: ['PutItem'] },
  input: () => {
    const url = (description: string) =>
      required(text(MAX_LTI_URL_LENGTH, { description, format: 'uri' }), registrationFieldsMissing, { blankIsMissing: true });
    return {
      headers: baseUrlHeaders(),
      body: {
        issuer: url("The platform's issuer (`iss` of its ID tokens), exactly as it writes it."),
        client_id: required(
          text(MAX_CLIENT_ID_LENGTH, { description: 'The client id the platform gave this tool.' }),
          registrationFieldsMissing,
          { blankIsMissing: true },
        ),
        auth_login_url: url("The platform's OIDC authorization endpoint, where a launch's login is sent."),
        auth_token_url: url("The platform's OAuth 2 token endpoint (for its services)."),
        jwks_url: url("The platform's public key set, which its ID tokens are checked against."),
        deployment_ids: z.optional(
          list({
            description: 'The deployment ids launches may come from; none: any, each recorded at its first launch.',
            items: 'deployment ids',
            maxItems: MAX_DEPLOYMENT_IDS,
          }),
        ),
        auth_token_audience: z.optional(
          text(MAX_LTI_URL_LENGTH, {
            description: "The audience of the tool's token requests, where the platform wants another than its token URL.",
          }),
        ),
        user_id_claim: z.optional(
          text(MAX_CLAIM_LENGTH, {
            description:
              'Where the user id is read from at a first launch: a claim of the ID token (`email`, the default; `sub`, …) or a member of one (`https://purl.imsglobal.org/spec/lti/claim/lis#person_sourcedid`, `https://purl.imsglobal.org/spec/lti/claim/custom#user_username`).',
          }),
        ),
        user_id_suffix: z.optional(
          text(255, { description: 'A suffix the claim must end with, removed from the user id (`@example.edu`).' }),
        ),
        create_users: z.optional(
          flag({ description: 'Whether a first launch of someone without an account here creates it (default false).' }),
        ),
        label: z.optional(text(MAX_LABEL_LENGTH, { description: 'What the platform is, for people.' })),
      },
    };
  },
});
