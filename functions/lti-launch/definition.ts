import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { text } from '#shared/http/fields.ts';

export const definition = route({
  name: 'lti-launch',
  method: 'POST',
  path: '/api/lti/launch',
  access: 'public',
  summary:
    "LTI 1.3 launch (the platform's form post of id_token and state): checks the ID token against the platform's keys and the login's state and nonce, binds the LMS user to a user here, and redirects to LTI_FRONTEND_URL with a one-time #lti_code= (or shows the code on a page), which POST /api/token trades for a launch session.",
  // The login's state, the registration, the person's binding, the context's link and the code; the user, their membership,
  // the course, its term and the gradeables the launch names; one transaction consumes the state and nonce, binds the person,
  // records a new deployment, creates an account (audited) or enrols a new member of a linked course (audited), and stores the code.
  data: {
    lti: ['BatchGetItem', 'GetItem', 'DeleteItem', 'PutItem', 'UpdateItem'],
    users: ['BatchGetItem', 'PutItem', 'ConditionCheckItem', 'UpdateItem'],
    enrollments: ['BatchGetItem', 'PutItem', 'UpdateItem'],
    courses: ['BatchGetItem'],
    terms: ['BatchGetItem'],
    gradeables: ['BatchGetItem'],
    accessGroups: ['PutItem', 'DeleteItem'],
    audit: ['PutItem'],
  },
  settings: ['LTI_ALLOWED_HOSTS', 'LTI_FRONTEND_URL'],
  input: () => ({
    body: {
      id_token: z.optional(text(16_384, { description: "The platform's ID token (a JWT carrying the LTI claims)." })),
      state: z.optional(text(256, { description: 'The state the login sent the platform.' })),
    },
  }),
});
