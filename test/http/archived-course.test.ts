import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createCourseWorld, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { daysFromNow, openDates } from '../support/dates.ts';
import { rubricComponent } from '../support/rubric.ts';
import { publicGradeableJson, uploadGradeable } from '../support/gradeables.ts';

// An archived course is closed: it takes no version (from git or of files) and no upload request,
// from a student or from its staff, until its instructors allow them with a course setting.

const CLOSED =
  'This course is archived and takes no submissions or uploads. Its instructors may allow them with the course setting archived_accepts_submissions.';

let api: TestApi;
let world: CourseWorld;
let vcs: string;
let files: string;
let inquired: string;
let inquiryId: string;

const CLOSED_TO_INQUIRIES =
  'This course is archived and takes no new or reopened grade inquiries. Its instructors may allow them with the course setting archived_accepts_submissions.';

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  world = await createCourseWorld(api);
  vcs = uniqueCode('vcs');
  files = uniqueCode('files');
  await uploadGradeable(api, world, publicGradeableJson(vcs));
  await uploadGradeable(api, world, { id: files, title: files, type: 'Electronic File', dates: openDates() });
  inquired = uniqueCode('asked');
  await uploadGradeable(api, world, {
    id: inquired,
    title: inquired,
    type: 'Electronic File',
    ta_grading: true,
    grade_inquiries: true,
    grade_inquiry_per_component_allowed: true,
    dates: {
      ta_view_start_date: daysFromNow(-20),
      submission_open_date: daysFromNow(-19),
      submission_due_date: daysFromNow(-10),
      grade_start_date: daysFromNow(-9),
      grade_due_date: daysFromNow(-8),
      grade_released_date: daysFromNow(-1),
      grade_inquiry_start_date: daysFromNow(-1),
      grade_inquiry_due_date: daysFromNow(6),
    },
    rubric: [rubricComponent('Style', { max_value: 5, upper_clamp: 5 }), rubricComponent('Design', { max_value: 5, upper_clamp: 5 })],
  });
  const opened = await api.postJson(
    `/${world.course.term}/${world.course.course}/gradeable/${inquired}/inquiries`,
    { content: 'Why did style lose a point?', component_id: 0 },
    world.tokens.student,
  );
  expect(opened.json.status, opened.text).toBe('success');
  inquiryId = opened.json.data.inquiry_id;
});
afterAll(async () => {
  await api?.close();
});

const base = () => `/${world.course.term}/${world.course.course}`;
const config = () => `/courses/${world.course.term}/${world.course.course}/config`;

/** Each way in: a version from git, a version of files (multipart), a presigned upload's request; as `persona`. */
async function attempts(persona: 'student' | 'instructor') {
  const headers = world.tokens[persona];
  const form = new FormData();
  form.append('files', new Blob(['text\n']), 'essay.txt');
  return {
    vcs: await api.postJson(`${base()}/gradeable/${vcs}/upload`, { vcs_checkout: true, git_repo_id: 'none' }, headers),
    files: await api.call('POST', `${base()}/gradeable/${files}/files`, { headers, body: form }),
    uploads: await api.postJson(`${base()}/gradeable/${files}/files/uploads`, { files: [{ name: 'big.zip', size: 10 }] }, headers),
  };
}

const setting = (entry: unknown) => api.postJson(config(), { name: 'archived_accepts_submissions', entry }, world.tokens.instructor);

const attemptsOf = async () =>
  (await api.get(`${base()}/gradeable/${files}/attempts`, world.tokens.student)).json.data as unknown[] | undefined;

describe('an archived course', () => {
  it('takes submissions and uploads while unarchived, and shows the setting off', async () => {
    const open = await attempts('student');
    for (const answer of Object.values(open)) expect(answer.json.status, answer.text).toBe('success');
    expect((await api.get(config(), world.tokens.instructor)).json.data.config).toMatchObject({
      archived: false,
      archived_accepts_submissions: false,
    });
  });

  it('refuses a student’s and its staff’s submissions and upload requests once archived, naming why and storing nothing', async () => {
    const before = await attemptsOf();
    expect((await api.postJson(`${config()}/archive`, {}, world.tokens.instructor)).json.status).toBe('success');
    for (const persona of ['student', 'instructor'] as const) {
      const closed = await attempts(persona);
      for (const [way, answer] of Object.entries(closed)) expect([way, answer.json]).toEqual([way, { status: 'fail', message: CLOSED }]);
    }
    // With Prefer: http-status, a 403.
    const status = await api.postJson(
      `${base()}/gradeable/${vcs}/upload`,
      { vcs_checkout: true, git_repo_id: 'none' },
      { ...world.tokens.student, Prefer: 'http-status' },
    );
    expect(status.httpStatus).toBe(403);
    expect(await attemptsOf()).toEqual(before);
  });

  it('takes them again once its instructor allows them with archived_accepts_submissions, with an audit entry', async () => {
    const refused = await setting('maybe');
    expect(refused.json).toEqual({ status: 'fail', message: 'Must enter true or false for this field' });
    const allowed = await setting(true);
    expect(allowed.json.data.config).toMatchObject({ archived: true, archived_accepts_submissions: true });
    const open = await attempts('student');
    for (const answer of Object.values(open)) expect(answer.json.status, answer.text).toBe('success');
    const audit = await api.get(`${base()}/audit`, world.tokens.instructor);
    expect(audit.json.data[0]).toMatchObject({
      action: 'course.setting-changed',
      target: 'archived_accepts_submissions',
      before: { archived_accepts_submissions: false },
      after: { archived_accepts_submissions: true },
    });
    // Set back (a form sends text), it is closed again.
    expect(
      (await api.postForm(config(), { name: 'archived_accepts_submissions', entry: 'false' }, world.tokens.instructor)).json.status,
    ).toBe('success');
    expect((await attempts('student')).files.json.message).toBe(CLOSED);
  });

  it('refuses a student a new or reopened grade inquiry, while its graders still resolve them', async () => {
    const inquiries = `${base()}/gradeable/${inquired}/inquiries`;
    const resolved = await api.call('PATCH', `${inquiries}/${inquiryId}`, {
      headers: { ...world.tokens.ta, 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'resolved' }),
    });
    expect(resolved.json.status, resolved.text).toBe('success');
    const reopened = await api.call('PATCH', `${inquiries}/${inquiryId}`, {
      headers: { ...world.tokens.student, 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'open' }),
    });
    expect(reopened.json).toEqual({ status: 'fail', message: CLOSED_TO_INQUIRIES });
    const another = await api.postJson(inquiries, { content: 'And design?', component_id: 1 }, world.tokens.student);
    expect(another.json).toEqual({ status: 'fail', message: CLOSED_TO_INQUIRIES });
    const listed = await api.get(`${base()}/inquiries?status=all&gradeable_id=${inquired}`, world.tokens.student);
    expect((listed.json.data as { status: string }[]).map((inquiry) => inquiry.status)).toEqual(['resolved']);
  });

  it('lets its graders still read the gradebook', async () => {
    const gradebook = await api.get(`${base()}/gradeable/${files}/gradebook`, world.tokens.ta);
    expect(gradebook.json.status, gradebook.text).toBe('success');
  });
});
