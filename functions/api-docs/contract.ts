/** What `api-docs` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { string } from '#shared/http/answers.ts';
import type { RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'Meta',
  raw: true,
  rawMediaTypes: ['text/html'],
  data: string.describe('The reference page (Swagger UI, served from this API: it loads nothing from elsewhere).'),
  fails: [],
};
