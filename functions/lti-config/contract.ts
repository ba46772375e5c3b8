/** What `lti-config` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { anyObject, components, object, string } from '#shared/http/answers.ts';
import type { RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'LTI',
  raw: true,
  data: object({
    title: string,
    description: string,
    oidc_initiation_url: z.url(),
    target_link_uri: z.url(),
    public_jwk_url: z.url(),
    scopes: z.array(string),
    custom_fields: z.record(z.string(), z.string()).describe('`user_username` carries the LMS login name (`$User.username`).'),
    extensions: z.array(anyObject).describe("Canvas's placements."),
    tool: components.LtiToolUrls,
  }).describe("Canvas's LTI 1.3 JSON configuration; the same URLs are what Moodle and others ask for."),
  fails: [],
};
