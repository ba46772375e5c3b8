/** What `user-summary` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { accessDenied } from '#shared/errors.ts';
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { noSummary } from '#shared/summaries/failures.ts';

const { Summary } = components;

export const contract: RouteContract = {
  tag: 'Summaries',
  data: Summary,
  fails: [fail(accessDenied), fail(noSummary)],
};
