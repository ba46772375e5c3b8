/** What `set-user-password` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { object, string } from '#shared/http/answers.ts';
import { fail, generatedPassword, passwordFails, type RouteContract } from '#shared/http/contract.ts';
import { noSuchUser } from '#shared/users/failures.ts';

export const contract: RouteContract = {
  tag: 'Users',
  data: object({ user_id: string, password: generatedPassword }),
  fails: [...passwordFails, fail(noSuchUser)],
};
