/** What `course-config` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { components } from '#shared/http/answers.ts';
import type { RouteContract } from '#shared/http/contract.ts';

const { CourseConfig } = components;

export const contract: RouteContract = { tag: 'Courses', data: CourseConfig, fails: [] };
