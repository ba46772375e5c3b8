/** What `lti-links` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import type { RouteContract } from '#shared/http/contract.ts';
import { components } from '#shared/http/answers.ts';

const { LtiLink } = components;

export const contract: RouteContract = { tag: 'LTI', data: z.array(LtiLink), fails: [] };
