/** What `me` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { object, string } from '#shared/http/answers.ts';
import type { RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'Users',
  data: object({ user_id: string, user_given_name: string, user_family_name: string }),
  fails: [],
};
