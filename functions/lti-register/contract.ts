/** What `lti-register` answers: an HTML page, done or naming the cause (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import {
  badPlatformUrl,
  badUserIdClaim,
  invitationExpired,
  invitationInUse,
  invitationUnknown,
  issuerOriginMismatch,
  platformAddressRefused,
  platformConfigurationInvalid,
  platformConfigurationUnreadable,
  platformHostUnknown,
  platformRefusedRegistration,
  registerFieldsMissing,
  registrationExists,
} from '#shared/lti/failures.ts';

export const contract: RouteContract = {
  tag: 'LTI',
  data: z.null(),
  platform: {
    redirects: [],
    page: 'The tool is registered: a page whose script posts {subject: "org.imsglobal.lti.close"} to the window that opened it (window.parent, window.opener), so the LMS closes it.',
  },
  fails: [
    registerFieldsMissing,
    invitationUnknown,
    invitationExpired,
    invitationInUse,
    badPlatformUrl,
    platformHostUnknown,
    platformAddressRefused,
    platformConfigurationUnreadable,
    platformConfigurationInvalid,
    issuerOriginMismatch,
    platformRefusedRegistration,
    registrationExists,
    badUserIdClaim,
  ].map(fail),
};
