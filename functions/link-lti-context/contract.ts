/** What `link-lti-context` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { badSection } from '#shared/courses/failures.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { components } from '#shared/http/answers.ts';

const { LtiLink } = components;
import { contextLinkedAlready, linkNeedsLaunch } from '#shared/lti/failures.ts';

export const contract: RouteContract = {
  tag: 'LTI',
  data: LtiLink,
  fails: [fail(linkNeedsLaunch), fail(contextLinkedAlready), fail(badSection)],
};
