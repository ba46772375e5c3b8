/** What `record-keys` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { object, string } from '#shared/http/answers.ts';
import type { RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'Submissions',
  raw: true,
  data: object({
    keys: z.array(
      object({
        kty: z.literal('OKP'),
        crv: z.literal('Ed25519'),
        x: string.describe('The public key, base64url.'),
        kid: string.describe("The key's id: its RFC 7638 thumbprint, named in the header of every record it signed."),
        alg: z.literal('EdDSA'),
        use: z.literal('sig'),
      }),
    ),
  }).describe('A JSON Web Key Set (RFC 7517), as is (no envelope): the key signing new records first, then every earlier one.'),
  fails: [],
};
