import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { openDates } from '../support/dates.ts';
import { makeZip } from '../support/zip.ts';
import { listObjects } from '#shared/storage/objects.ts';
import { uploadGradeable } from '../support/gradeables.ts';

let api: TestApi;
let world: CourseWorld;

beforeAll(async () => {
  api = await startTestApi({ workers: 1 });
  world = await createCourseWorld(api);
});
afterAll(async () => {
  await api.close();
});

const HELLO_CPP = '#include <iostream>\nint main() { std::cout << "Hello, World!" << std::endl; return 0; }\n';

async function createGradeable(extra: Record<string, unknown> = {}) {
  const id = uniqueCode('files');
  const document = {
    id,
    title: `Files ${id}`,
    type: 'Electronic File',
    dates: openDates(),
    autograding: {
      test_cases: [
        { name: 'Compiles', command: 'g++ -o /tmp/main main.cpp', points_available: 2, timeout_seconds: 60, expect: { exit_code: 0 } },
        {
          name: 'Greets',
          command: 'g++ -o /tmp/main main.cpp && /tmp/main',
          points_available: 3,
          timeout_seconds: 60,
          expect: { stdout_contains: 'Hello' },
        },
      ],
    },
    ...extra,
  };
  await uploadGradeable(api, world, document);
  return id;
}

const path = (id: string, rest: string) => `/${world.course.term}/${world.course.course}/gradeable/${id}/${rest}`;

function multipart(files: readonly { name: string; content: Buffer | string }[], fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of files) form.append('files', new Blob([file.content]), file.name);
  return form;
}

const sendFiles = (id: string, files: readonly { name: string; content: Buffer | string }[], token = world.tokens.student) =>
  api.call('POST', path(id, 'files'), { headers: token, body: multipart(files) });

async function gradedValues(id: string, token = world.tokens.student) {
  let data: { autograding_complete?: boolean; test_cases?: { name: string; points_received: number }[] } = {};
  for (let poll = 0; poll < 300 && !data.autograding_complete; poll++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    data = (await api.get(path(id, 'values'), token)).json.data;
  }
  return data;
}

/** S3 itself, not the API: its answers have no contract to check. */
// eslint-disable-next-line no-restricted-globals -- the local S3 endpoint, not the API
const s3Fetch = (url: string, init?: RequestInit): Promise<Response> => fetch(url, init);

/** Sends a presigned POST as a browser would: the fields, then the file last. */
async function upload(target: { url: string; fields: Record<string, string> }, content: Buffer): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(target.fields)) form.append(name, value);
  form.append('file', new Blob([content]));
  return s3Fetch(target.url, { method: 'POST', body: form });
}

describe('submitting files', () => {
  it('grades a C++ file sent by multipart, and lists it for download', async () => {
    const id = await createGradeable();
    const answer = await sendFiles(id, [{ name: 'main.cpp', content: HELLO_CPP }]);
    expect(answer.json, answer.text).toEqual({ status: 'success', data: `Successfully uploaded version 1 for Files ${id}` });
    const data = await gradedValues(id);
    expect(data.test_cases?.map((test) => [test.name, test.points_received])).toEqual([
      ['Compiles', 2],
      ['Greets', 3],
    ]);
    const attempts = await api.get(path(id, 'attempts'), world.tokens.student);
    expect(attempts.json.data).toHaveLength(1);

    const listed = await api.get(`${path(id, 'files')}?version=1`, world.tokens.student);
    expect(listed.json.data).toMatchObject({ version: 1, files: [{ name: 'main.cpp', size: HELLO_CPP.length }] });
    const file = await s3Fetch(listed.json.data.files[0].url);
    expect(await file.text()).toBe(HELLO_CPP);
  });

  it('grades a large archive uploaded through presigned POSTs', async () => {
    const id = await createGradeable();
    // Incompressible padding (stored) makes the archive large; the graded file sits in a folder of it.
    const padding = Buffer.from(Array.from({ length: 6 * 1024 * 1024 }, (_, index) => (index * 7919) % 251));
    const archive = makeZip([
      { name: 'main.cpp', content: HELLO_CPP },
      { name: 'data/padding.bin', content: padding, deflate: false },
    ]);
    const declared = await api.postJson(
      path(id, 'files/uploads'),
      { files: [{ name: 'work.zip', size: archive.length }] },
      world.tokens.student,
    );
    expect(declared.json.status, declared.text).toBe('success');
    const [form] = declared.json.data.uploads as { name: string; upload_id: string; url: string; fields: Record<string, string> }[];
    expect(form!.name).toBe('work.zip');
    expect((await upload(form!, archive)).status).toBeLessThan(300);

    const answer = await api.postJson(path(id, 'files'), { upload_ids: [form!.upload_id] }, world.tokens.student);
    expect(answer.json, answer.text).toEqual({ status: 'success', data: `Successfully uploaded version 1 for Files ${id}` });
    const data = await gradedValues(id);
    expect(data.test_cases?.map((test) => [test.name, test.points_received])).toEqual([
      ['Compiles', 2],
      ['Greets', 3],
    ]);
    // A confirmed upload is the version's now: it cannot be submitted again.
    const again = await api.postJson(path(id, 'files'), { upload_ids: [form!.upload_id] }, world.tokens.student);
    expect(again.json.message).toBe(`The upload ${form!.upload_id} is not one of yours, has expired or was never uploaded.`);
  });

  it('refuses hostile names, zips and sizes with a message naming the file and the rule, writing nothing', async () => {
    const id = await createGradeable({ submission_limits: { max_files: 3, max_bytes: 10_000 } });
    const refused = async (files: { name: string; content: Buffer | string }[]) => (await sendFiles(id, files)).json.message;
    expect(await refused([{ name: '../evil.sh', content: 'x' }])).toBe(
      'The file name ../evil.sh contains a folder separator: send the file itself, or a .zip to keep folders.',
    );
    expect(
      await refused([
        { name: 'a.c', content: 'x' },
        { name: 'a.c', content: 'y' },
      ]),
    ).toBe('The file a.c is sent twice: file names must differ.');
    expect(await refused([{ name: 'a<b.c', content: 'x' }])).toBe(
      'Error: You may not use quotes, backslashes or angle brackets in your file name a<b.c.',
    );
    expect(await refused([{ name: 'big.bin', content: Buffer.alloc(10_001) }])).toBe(
      'File(s) uploaded too large.  Maximum size is 10 kb. Uploaded file(s) was 10.001 kb.',
    );
    expect(await refused(['a', 'b', 'c', 'd'].map((name) => ({ name, content: 'x' })))).toBe(
      'This gradeable takes at most 3 files; the submission has 4.',
    );
    expect(await refused([{ name: 'w.zip', content: makeZip([{ name: '../../etc/cron.d/x', content: 'x' }]) }])).toBe(
      'The file w.zip holds ../../etc/cron.d/x, which lies outside its folder.',
    );
    expect(await refused([{ name: 'w.zip', content: makeZip([{ name: 'l', content: '/etc/shadow', mode: 0o120777 }]) }])).toBe(
      'The file w.zip holds l, a link: links are not accepted.',
    );
    expect(await refused([{ name: 'bomb.zip', content: makeZip([{ name: 'z', content: Buffer.alloc(1_000_000) }]) }])).toBe(
      'File(s) uploaded too large.  Maximum size is 10 kb. Uploaded file(s) was 1000 kb: the file bomb.zip holds z, which unpacks to 1000 kb.',
    );
    expect(
      await refused([{ name: 'bomb.zip', content: makeZip([{ name: 'z', content: Buffer.alloc(1_000_000), declaredSize: 10 }]) }]),
    ).toBe('Corrupted ZIP file for bomb.zip.');
    expect((await api.postJson(path(id, 'files'), {}, world.tokens.student)).json.message).toBe('No files to be submitted.');
    expect((await api.postJson(path(id, 'files/uploads'), { files: [{ name: '..', size: 1 }] }, world.tokens.student)).json.message).toBe(
      'The file name .. is not allowed: . and .. name folders.',
    );
    expect(
      (await api.postJson(path(id, 'files/uploads'), { files: [{ name: 'x', size: 20_000 }] }, world.tokens.student)).json.message,
    ).toContain('File(s) uploaded too large.');
    // Nothing was written: no version, no files.
    expect((await api.get(path(id, 'attempts'), world.tokens.student)).json.data).toEqual([]);
  });

  it('grades and lists every version with its own files when submissions race', async () => {
    // One test case whose points say whose file it read: a version graded on another's files scores wrongly.
    const id = await createGradeable({
      autograding: {
        test_cases: [
          { name: 'Bravo', command: 'cat say.txt', points_available: 1, timeout_seconds: 60, expect: { stdout_contains: 'Bravo' } },
        ],
      },
    });
    const student = world.users.student.userId;
    const sent = new Map<number, string>();
    // Staff's submissions for a student are all graded (none supersedes another), so every version is checked.
    for (let round = 0; round < 4; round++) {
      const words = [`Alpha ${round}\n`, `Bravo ${round}\n`];
      const answers = await Promise.all(
        words.map((content) =>
          api.call('POST', path(id, 'files'), {
            headers: world.tokens.instructor,
            body: multipart([{ name: 'say.txt', content }], { user_id: student }),
          }),
        ),
      );
      answers.forEach((answer, index) => {
        expect(answer.json.status, answer.text).toBe('success');
        sent.set(Number(/version (\d+) /.exec(answer.json.data as string)?.[1]), words[index]!);
      });
    }
    expect([...sent.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const [version, content] of sent) {
      const listed = await api.get(`${path(id, 'files')}?version=${version}&user_id=${student}`, world.tokens.instructor);
      expect(listed.json.data.files, listed.text).toHaveLength(1);
      expect(await (await s3Fetch(listed.json.data.files[0].url)).text(), `version ${version}`).toBe(content);
    }
    let graded: { version: number; grading_state: string; points: number | null }[] = [];
    for (let poll = 0; poll < 600 && !(graded.length === 8 && graded.every((entry) => entry.grading_state === 'graded')); poll++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      graded = (await api.get(path(id, 'attempts'), world.tokens.student)).json.data;
    }
    expect(Object.fromEntries(graded.map((entry) => [entry.version, entry.points]))).toEqual(
      Object.fromEntries([...sent].map(([version, content]) => [version, content.startsWith('Bravo') ? 1 : 0])),
    );
  });

  it('leaves no files behind when a racing retry with the same Idempotency-Key gets the first answer', async () => {
    const id = await createGradeable();
    for (let round = 0; round < 3; round++) {
      const headers = { ...world.tokens.student, 'Idempotency-Key': uniqueCode('race') };
      const answers = await Promise.all(
        [0, 1].map(() => api.call('POST', path(id, 'files'), { headers, body: multipart([{ name: 'main.cpp', content: HELLO_CPP }]) })),
      );
      expect(answers.map((answer) => answer.json.data)).toEqual(
        Array(2).fill(`Successfully uploaded version ${round + 1} for Files ${id}`),
      );
    }
    const stored = await listObjects(`versions/${world.course.term}/${world.course.course}/${id}/${world.users.student.userId}/`);
    // One version's files each round: the retry's copy was removed.
    expect(stored).toHaveLength(3);
  });

  it('creates one version when confirmations of the same uploads race, refusing the others as a second confirmation is', async () => {
    const id = await createGradeable();
    const uploaded = async () => {
      const files = [
        { name: 'main.cpp', content: Buffer.from(HELLO_CPP) },
        { name: 'notes.txt', content: Buffer.from('notes\n') },
      ];
      const declared = await api.postJson(
        path(id, 'files/uploads'),
        { files: files.map((file) => ({ name: file.name, size: file.content.length })) },
        world.tokens.student,
      );
      expect(declared.json.status, declared.text).toBe('success');
      const forms = declared.json.data.uploads as { upload_id: string; url: string; fields: Record<string, string> }[];
      for (const [index, form] of forms.entries()) expect((await upload(form, files[index]!.content)).status).toBeLessThan(300);
      return forms.map((form) => form.upload_id);
    };
    const student = world.users.student.userId;
    const versions = `versions/${world.course.term}/${world.course.course}/${id}/${student}/`;
    const uploads = `uploads/${world.course.term}/${world.course.course}/${id}/${student}/`;

    // A double click, retries without an Idempotency-Key: one version, the others refused as if sent after it.
    const ids = await uploaded();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => api.postJson(path(id, 'files'), { upload_ids: ids }, world.tokens.student)),
    );
    const succeeded = answers.filter((answer) => answer.json.status === 'success');
    expect(
      succeeded.map((answer) => answer.json.data),
      answers.map((answer) => answer.text).join('\n'),
    ).toEqual([`Successfully uploaded version 1 for Files ${id}`]);
    // Answered as a confirmation sent after the version is.
    const after = await api.postJson(path(id, 'files'), { upload_ids: ids }, world.tokens.student);
    expect(after.json.message).toBe(`The upload ${ids[0]} is not one of yours, has expired or was never uploaded.`);
    for (const answer of answers.filter((each) => each.json.status !== 'success')) {
      expect([answer.httpStatus, answer.json.status], answer.text).toEqual([after.httpStatus, after.json.status]);
      expect(ids.map((upload) => `The upload ${upload} is not one of yours, has expired or was never uploaded.`)).toContain(
        answer.json.message,
      );
    }
    expect((await api.get(path(id, 'attempts'), world.tokens.student)).json.data).toHaveLength(1);
    // The refused ones' copies are gone: only the version's two files are stored, and the uploads are consumed.
    expect(await listObjects(versions)).toHaveLength(2);
    expect(await listObjects(uploads)).toHaveLength(0);
    const data = await gradedValues(id);
    expect(data.test_cases?.map((test) => test.points_received)).toEqual([2, 3]);

    // As many uploads as one version's transaction can consume.
    const many = await api.postJson(path(id, 'files'), { upload_ids: Array(65).fill(ids[0]) }, world.tokens.student);
    expect(many.json.message).toBe('The field upload_ids must be a list of upload ids.');
    const declaredMany = await api.postJson(
      path(id, 'files/uploads'),
      { files: Array.from({ length: 65 }, (_, index) => ({ name: `f${index}.txt`, size: 1 })) },
      world.tokens.student,
    );
    expect(declaredMany.json.status).toBe('fail');

    // Retries with the same Idempotency-Key still get the first answer.
    const again = await uploaded();
    const headers = { ...world.tokens.student, 'Idempotency-Key': uniqueCode('confirm') };
    const retried = await Promise.all(Array.from({ length: 4 }, () => api.postJson(path(id, 'files'), { upload_ids: again }, headers)));
    expect(
      retried.map((answer) => answer.json.data),
      retried.map((answer) => answer.text).join('\n'),
    ).toEqual(Array(4).fill(`Successfully uploaded version 2 for Files ${id}`));
    // Also once the uploads are gone.
    const later = await api.postJson(path(id, 'files'), { upload_ids: again }, headers);
    expect(later.json.data, later.text).toBe(`Successfully uploaded version 2 for Files ${id}`);
    expect((await api.get(path(id, 'attempts'), world.tokens.student)).json.data).toHaveLength(2);
    expect(await listObjects(versions)).toHaveLength(4);

    // The most uploads one confirmation takes fit in its version's transaction.
    const most = await api.postJson(
      path(id, 'files/uploads'),
      { files: Array.from({ length: 64 }, (_, index) => ({ name: `f${index}.txt`, size: 1 })) },
      world.tokens.student,
    );
    const mostForms = most.json.data.uploads as { upload_id: string; url: string; fields: Record<string, string> }[];
    await Promise.all(mostForms.map(async (form) => expect((await upload(form, Buffer.from('x'))).status).toBeLessThan(300)));
    const confirmed = await api.postJson(
      path(id, 'files'),
      { upload_ids: mostForms.map((form) => form.upload_id) },
      { ...world.tokens.student, 'Idempotency-Key': uniqueCode('most') },
    );
    expect(confirmed.json.data, confirmed.text).toBe(`Successfully uploaded version 3 for Files ${id}`);
  });

  it('keeps VCS and files gradeables apart, and keeps each student to their own files', async () => {
    const id = await createGradeable();
    const vcs = await api.postJson(path(id, 'upload'), { vcs_checkout: 'true', git_repo_id: 'x' }, world.tokens.student);
    expect(vcs.json.message).toBe('Student API for upload only supports VCS gradeables');
    expect((await sendFiles(id, [{ name: 'main.cpp', content: HELLO_CPP }])).json.status).toBe('success');
    const theirs = await api.get(`${path(id, 'files')}?version=1&user_id=${world.users.student.userId}`, world.tokens.student2);
    expect(theirs.json.message).toBe('API key and specified user_id are not for the same user.');
    const staff = await api.get(`${path(id, 'files')}?version=1&user_id=${world.users.student.userId}`, world.tokens.instructor);
    expect(staff.json.data.files).toHaveLength(1);
    expect((await api.get(`${path(id, 'files')}?version=2`, world.tokens.student)).json.message).toBe(
      'Version 2 of this submission has no files.',
    );
  });

  it("lists the active version's files when no version is named, and says so when there is none", async () => {
    const id = await createGradeable();
    const listed = async () => {
      const answer = await api.get(path(id, 'files'), world.tokens.student);
      return answer.json.status === 'success'
        ? [answer.json.data.version, answer.json.data.files.map((file: { name: string }) => file.name)]
        : answer.json.message;
    };
    const noActiveVersion =
      'This submission has no active version (nothing submitted, or cancelled): name the version whose files to list with version.';
    expect(await listed()).toBe(noActiveVersion);
    expect((await sendFiles(id, [{ name: 'first.cpp', content: HELLO_CPP }])).json.status).toBe('success');
    expect((await sendFiles(id, [{ name: 'main.cpp', content: HELLO_CPP }])).json.status).toBe('success');
    expect(await listed()).toEqual([2, ['main.cpp']]);
    const choose = (version: number) => api.postJson(path(id, 'version'), { version }, world.tokens.student);
    expect((await choose(1)).json.status).toBe('success');
    expect(await listed()).toEqual([1, ['first.cpp']]);
    // Cancelled: no active version, while each version's files stay listed by number.
    expect((await choose(0)).json.status).toBe('success');
    expect(await listed()).toBe(noActiveVersion);
    expect((await api.get(`${path(id, 'files')}?version=2`, world.tokens.student)).json.data.files).toHaveLength(1);
  });
});
