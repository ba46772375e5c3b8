/** What `regrade-status` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { regradeNotFound } from '#shared/grading/failures.ts';
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';

const { Regrade } = components;

export const contract: RouteContract = { tag: 'Submissions', data: Regrade, fails: [fail(regradeNotFound)] };
