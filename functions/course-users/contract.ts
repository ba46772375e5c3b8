/** What `course-users` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components } from '#shared/http/answers.ts';
import { byRegistrationSection, pageFails, type RouteContract } from '#shared/http/contract.ts';

const { CourseUser } = components;

export const contract: RouteContract = {
  tag: 'Courses',
  data: z.array(CourseUser).describe(byRegistrationSection),
  fails: pageFails,
  successHeaders: ['Link'],
};
