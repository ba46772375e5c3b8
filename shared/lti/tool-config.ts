/**
 * The tool's configuration for manual set-up: Canvas's JSON configuration (its developer key's
 * "Enter URL"), whose fields also name what Moodle and others ask for.
 */
import { toolUrls } from './registration.ts';

/** The custom field a platform fills with the user's login name (LTI's `$User.username` substitution). */
export const USERNAME_CUSTOM_FIELD = 'user_username';

/** The services the tool asks for: Assignment and Grade Services, and Names and Role Provisioning. */
export const TOOL_SCOPES = [
  'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem',
  'https://purl.imsglobal.org/spec/lti-ags/scope/score',
  'https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly',
  'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly',
];

export function toolConfiguration(base: string) {
  const urls = toolUrls(base);
  return {
    title: 'Course Submission API',
    description: 'Submissions and grading of course assignments.',
    oidc_initiation_url: urls.login_url,
    target_link_uri: urls.launch_url,
    public_jwk_url: urls.jwks_url,
    // A Canvas developer key grants its tool only the scopes it lists: without them no grade goes back and no roster is read.
    scopes: TOOL_SCOPES,
    custom_fields: { [USERNAME_CUSTOM_FIELD]: '$User.username' },
    extensions: [
      {
        platform: 'canvas.instructure.com',
        privacy_level: 'public',
        settings: {
          placements: [
            { placement: 'course_navigation', message_type: 'LtiResourceLinkRequest', target_link_uri: urls.launch_url },
            // Where an instructor picks gradeables for an assignment or a module (deep linking).
            { placement: 'assignment_selection', message_type: 'LtiDeepLinkingRequest', target_link_uri: urls.deep_linking_url },
            { placement: 'link_selection', message_type: 'LtiDeepLinkingRequest', target_link_uri: urls.deep_linking_url },
          ],
        },
      },
    ],
    tool: urls,
  };
}
