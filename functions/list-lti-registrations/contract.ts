/** What `list-lti-registrations` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components } from '#shared/http/answers.ts';
import type { RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'LTI',
  data: z.array(components.LtiRegistration).describe('By registration id.'),
  fails: [],
};
