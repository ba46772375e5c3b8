/** What `unlink-lti-context` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { linkNotFound, unlinkFieldsMissing } from '#shared/lti/failures.ts';

export const contract: RouteContract = { tag: 'LTI', data: z.null(), fails: [fail(linkNotFound), fail(unlinkFieldsMissing)] };
