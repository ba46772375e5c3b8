/** What `summaries-job` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { summariesJobNotFound } from '#shared/summaries/failures.ts';

const { SummariesJob } = components;

export const contract: RouteContract = { tag: 'Summaries', data: SummariesJob, fails: [fail(summariesJobNotFound)] };
