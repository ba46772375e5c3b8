/** What `create-lti-deep-link` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { object, string } from '#shared/http/answers.ts';
import {
  deepLinkCourseNotLinked,
  deepLinkFieldsMissing,
  deepLinkGradeableUnknown,
  deepLinkNeedsLaunch,
  deepLinkNotInstructor,
  deepLinkOneOnly,
  deepLinkTypeRefused,
  gradeableNamedTwice,
  registrationNotFound,
  toolKeyMissing,
} from '#shared/lti/failures.ts';

export const contract: RouteContract = {
  tag: 'LTI',
  data: object({
    url: string.describe("The platform's deep_link_return_url, where the response is posted (form field JWT)."),
    jwt: string.describe(
      "The LtiDeepLinkingResponse, signed RS256 with the tool's current key (kid set): iss the client id, aud the platform's issuer, the launch's deployment_id and data echoed, one ltiResourceLink content item per gradeable with custom.gradeable_id and its lineItem.",
    ),
    html: string.describe(
      'A small page that posts JWT to url at once (its own Content-Security-Policy allows only that), for a frontend to open.',
    ),
  }),
  fails: [
    deepLinkFieldsMissing,
    deepLinkNeedsLaunch,
    deepLinkCourseNotLinked,
    deepLinkNotInstructor,
    deepLinkTypeRefused,
    deepLinkOneOnly,
    gradeableNamedTwice,
    deepLinkGradeableUnknown,
    registrationNotFound,
    toolKeyMissing,
  ].map(fail),
};
