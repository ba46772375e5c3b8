/** What `list-webhooks` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components } from '#shared/http/answers.ts';
import type { RouteContract } from '#shared/http/contract.ts';

const { Webhook } = components;

export const contract: RouteContract = { tag: 'Webhooks', data: z.array(Webhook), fails: [] };
