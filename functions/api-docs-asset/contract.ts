/** What `api-docs-asset` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { string } from '#shared/http/answers.ts';
import type { RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'Meta',
  raw: true,
  rawMediaTypes: ['text/javascript', 'text/css'],
  data: string.describe('The asset, gzip-compressed when the request accepts it.'),
  fails: [{ status: 404, message: 'Endpoint not found.' }],
};
