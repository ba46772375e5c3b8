/** What `lti-jwks` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { object, string } from '#shared/http/answers.ts';
import type { RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'LTI',
  raw: true,
  data: object({
    keys: z
      .array(z.looseObject({ kty: z.literal('RSA'), kid: string, alg: z.literal('RS256'), use: z.literal('sig'), n: string, e: string }))
      .describe('The current key first, then the next one; empty until the deployment has keys (`npm run admin -- rotate-lti-key`).'),
  }).describe('A JSON Web Key Set (RFC 7517) of public keys only.'),
  fails: [],
};
