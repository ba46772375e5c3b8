/** What `get-user` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { accessDenied } from '#shared/errors.ts';
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { noSuchUser } from '#shared/users/failures.ts';

const { User } = components;

export const contract: RouteContract = { tag: 'Users', data: User, fails: [fail(accessDenied), fail(noSuchUser)] };
