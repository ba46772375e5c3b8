/** What `lti-launch` answers: a redirect or an HTML page (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { idTokenRefused } from '#shared/auth/failures.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import {
  contextNotLinked,
  deploymentNotAllowed,
  launchRoleNone,
  launchAccountDisabled,
  launchFieldsMissing,
  launchStateUnknown,
  launchTokenRefused,
  launchUserUnknown,
  launchUserUnnamed,
} from '#shared/lti/failures.ts';

export const contract: RouteContract = {
  tag: 'LTI',
  data: z.null(),
  platform: {
    redirects: [
      {
        status: 303,
        description:
          'To LTI_FRONTEND_URL with #lti_code=<code>: a one-time code (256 random bits, kept hashed, 60 seconds) that POST /api/token trades for a launch session.',
      },
    ],
    page: 'Where LTI_FRONTEND_URL is unset: a page saying what the launch opened, with the launch code.',
  },
  fails: [
    launchFieldsMissing,
    launchStateUnknown,
    launchTokenRefused,
    deploymentNotAllowed,
    launchUserUnnamed,
    launchUserUnknown,
    launchAccountDisabled,
    idTokenRefused,
    contextNotLinked,
    launchRoleNone,
  ].map(fail),
};
