/** The deployed day's steps of `submission-files` (test/deployed/day.ts says how the day runs them). */
import { expect } from 'vitest';
import { call, COURSE, FILES, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'a version without files is not found',
    phase: 'files declared',
    run: async () => {
      await call('GET', `/api/${TERM}/${COURSE}/gradeable/${FILES}/files?version=1`, {
        as: 'student',
        expect: { fail: 'Version 1 of this submission has no files.', status: 404 },
      });
    },
  },
  {
    title: "lists the archive's version's files",
    phase: 'files read',
    builds: true,
    run: async () => {
      const listed = await call('GET', `/api/${TERM}/${COURSE}/gradeable/${FILES}/files?version=2`, { as: 'student' });
      expect((listed.json?.data?.files as { name: string }[] | undefined)?.map((file) => file.name)).toEqual(['work.zip']);
    },
  },
];
