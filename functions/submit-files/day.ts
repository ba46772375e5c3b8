/** The deployed day's steps of `submit-files` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, FILES, gradedFiles, handedOn, TERM, WORK_ZIP, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'a submission of no files is refused',
    phase: 'files declared',
    run: async () => {
      await call('POST', `/api/${TERM}/${COURSE}/gradeable/${FILES}/files`, {
        as: 'student',
        json: { upload_ids: [] },
        expect: { fail: 'No files to be submitted.', status: 400 },
      });
    },
  },
  {
    title: 'a student submits a script by multipart and an archive by a presigned POST to S3, each graded in its own build',
    phase: 'files submitted',
    builds: true,
    timeoutMs: 150_000,
    run: async () => {
      const files = `/api/${TERM}/${COURSE}/gradeable/${FILES}/files`;
      await call('POST', files, { as: 'student', files: { 'hello.sh': 'echo "Hello, World!"\n', 'README.md': '# Homework\n' } });
      await gradedFiles(1);
      // Straight to the bucket, as a browser sends the form: the fields, then the file.
      const [form] = handedOn.uploads ?? [];
      const upload = new FormData();
      for (const [name, value] of Object.entries(form!.fields)) upload.append(name, value);
      upload.append('file', new Blob([new Uint8Array(WORK_ZIP)]));
      // eslint-disable-next-line no-restricted-globals -- the emulated S3, not the API
      const stored = await fetch(form!.url, { method: 'POST', body: upload });
      if (stored.status >= 300) fail('presigned POST to S3', `${stored.status} ${await stored.text()}`);
      await call('POST', files, { as: 'student', json: { upload_ids: [form!.upload_id] } });
      await gradedFiles(2);
    },
  },
];
