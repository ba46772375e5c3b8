/** The fields of a third-party initiated login (LTI Core 1.3 §4.1), read alike from its query (GET) and form (POST). */
import * as z from 'zod/mini';
import { text } from './fields.ts';
import { MAX_CLIENT_ID_LENGTH, MAX_DEPLOYMENT_ID_LENGTH, MAX_LTI_URL_LENGTH } from '#shared/lti/registration.ts';

export const loginFields = () => ({
  iss: z.optional(text(MAX_LTI_URL_LENGTH, { description: "The platform's issuer." })),
  login_hint: z.optional(text(2048, { description: 'Who is logging in, as the platform names them; echoed to it.' })),
  target_link_uri: z.optional(text(MAX_LTI_URL_LENGTH, { description: "Where the launch is meant to end: this tool's launch URL." })),
  lti_message_hint: z.optional(text(2048, { description: 'What the platform will launch; echoed to it.' })),
  client_id: z.optional(
    text(MAX_CLIENT_ID_LENGTH, {
      description: "The tool's client id at the platform; may be left out where the issuer has one registration.",
    }),
  ),
  lti_deployment_id: z.optional(text(MAX_DEPLOYMENT_ID_LENGTH, { description: 'The deployment the launch comes from.' })),
});
