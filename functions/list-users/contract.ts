/** What `list-users` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components } from '#shared/http/answers.ts';
import { pageFails, type RouteContract } from '#shared/http/contract.ts';

const { User } = components;

export const contract: RouteContract = {
  tag: 'Users',
  data: z.array(User).describe('By user id.'),
  fails: pageFails,
  successHeaders: ['Link'],
};
