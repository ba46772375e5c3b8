/**
 * The tool's configuration for manual set-up: Canvas's JSON configuration (its developer key's
 * "Enter URL"), whose fields also name what Moodle and others ask for.
 */
import { toolUrls } from './registration.ts';

/** The custom field a platform fills with the user's login name (LTI's `$User.username` substitution). */
export const USERNAME_CUSTOM_FIELD = 'user_username';

export function toolConfiguration(base: string) {
  const urls = toolUrls(base);
  return {
    title: 'Course Submission API',
    description: 'Submissions and grading of course assignments.',
    oidc_initiation_url: urls.login_url,
    target_link_uri: urls.launch_url,
    public_jwk_url: urls.jwks_url,
    scopes: [] as string[],
    custom_fields: { [USERNAME_CUSTOM_FIELD]: '$User.username' },
    extensions: [
      {
        platform: 'canvas.instructure.com',
        privacy_level: 'public',
        settings: {
          placements: [{ placement: 'course_navigation', message_type: 'LtiResourceLinkRequest', target_link_uri: urls.launch_url }],
        },
      },
    ],
    tool: urls,
  };
}
