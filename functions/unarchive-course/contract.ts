/** What `unarchive-course` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { unarchiveNeedsFaculty } from '#shared/courses/failures.ts';
import { object, string } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = { tag: 'Courses', data: object({ message: string }), fails: [fail(unarchiveNeedsFaculty)] };
