/** What `create-lti-registration` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import {
  badDeploymentId,
  badPlatformUrl,
  badUserIdClaim,
  platformAddressRefused,
  platformHostUnknown,
  registrationExists,
  registrationFieldsMissing,
} from '#shared/lti/failures.ts';

export const contract: RouteContract = {
  tag: 'LTI',
  data: components.LtiRegistration,
  fails: [
    fail(registrationFieldsMissing),
    fail(badPlatformUrl),
    fail(platformHostUnknown),
    fail(platformAddressRefused),
    fail(badDeploymentId),
    fail(badUserIdClaim),
    fail(registrationExists),
  ],
};
