import { route } from '#shared/http/routes.ts';
import { list, required } from '#shared/http/fields.ts';
import { baseUrlHeaders } from '#shared/http/parameters.ts';
import { MAX_DEEP_LINK_ITEMS } from '#shared/lti/registration.ts';
import { deepLinkFieldsMissing } from '#shared/lti/failures.ts';

export const definition = route({
  name: 'create-lti-deep-link',
  method: 'POST',
  path: '/api/lti/deep-links',
  access: 'user',
  summary:
    "Add gradeables to the LMS (deep linking): from an instructor's deep-linking launch session, gradeables of the launched course, one resource link each, with its gradebook line item. Answers the platform's return URL, the LtiDeepLinkingResponse signed with the tool's key, and a page that posts it there. Writes nothing.",
  // The caller's launch session with the token check; their enrollment and the gradeables in one batch, the registration beside it.
  data: { sessions: ['BatchGetItem'], enrollments: ['BatchGetItem'], gradeables: ['BatchGetItem'], lti: ['GetItem'] },
  ltiKey: 'read',
  input: () => ({
    headers: baseUrlHeaders(),
    body: {
      gradeable_ids: required(
        list({
          description: `The gradeables of the launch's course to add, 1 to ${MAX_DEEP_LINK_ITEMS}, each once (several only where the LMS takes several).`,
          items: 'gradeable ids',
          maxItems: MAX_DEEP_LINK_ITEMS,
        }),
        () => deepLinkFieldsMissing({ max: MAX_DEEP_LINK_ITEMS }),
        { emptyIsMissing: true },
      ),
    },
  }),
});
