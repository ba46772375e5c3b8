/** What `openapi` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { anyObject } from '#shared/http/answers.ts';
import type { RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'Meta',
  raw: true,
  data: anyObject.describe('This OpenAPI 3.1 document, as is (no envelope).'),
  fails: [],
};
