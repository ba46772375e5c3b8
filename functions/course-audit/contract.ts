/** What `course-audit` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { auditTrail, pageFails, type RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = { tag: 'Courses', data: auditTrail, fails: pageFails, successHeaders: ['Link'] };
