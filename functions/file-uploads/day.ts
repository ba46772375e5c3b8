/** The deployed day's steps of `file-uploads` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, FILES, handedOn, TERM, WORK_ZIP, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the student declares an archive to upload straight to the bucket',
    phase: 'files declared',
    run: async () => {
      const declared = await call('POST', `/api/${TERM}/${COURSE}/gradeable/${FILES}/files/uploads`, {
        as: 'student',
        json: { files: [{ name: 'work.zip', size: WORK_ZIP.length }] },
      });
      handedOn.uploads = declared.json?.data?.uploads;
    },
  },
];
