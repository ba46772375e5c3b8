/** What `delete-webhook` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { webhookNotFound } from '#shared/webhooks/failures.ts';

export const contract: RouteContract = { tag: 'Webhooks', data: z.null(), fails: [fail(webhookNotFound)] };
