import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { addMember, createCourse, createCourseWorld, tokenOf, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createUser } from '../support/users.ts';
import { asJson, gradeableDocument } from '../support/gradeable-arbitrary.ts';
import { daysFromNow } from '../support/dates.ts';

let api: TestApi;
let world: CourseWorld;
/** The reference's example as its JSON reads (fields the tests change named). */
type GradeableJson = Record<string, unknown> & { id: string; dates: Record<string, unknown>; rubric: Record<string, unknown>[] };
let example: GradeableJson;
beforeAll(async () => {
  api = await startTestApi();
  world = await createCourseWorld(api);
  example = JSON.parse(await readFile('test/fixtures/example-gradeable.json', 'utf8'));
});
afterAll(() => api.close());

const base = () => `/${world.course.term}/${world.course.course}`;
const upload = (document: unknown, persona: keyof CourseWorld['tokens'] = 'instructor', path = base()) =>
  api.postJson(`${path}/upload`, document, world.tokens[persona]);
const download = (id: string, persona: keyof CourseWorld['tokens'] = 'instructor', path = base()) =>
  api.get(`${path}/${id}/download`, world.tokens[persona]);

describe('gradeable upload and download', () => {
  it("round-trips the reference's realistic example exactly, late_submission_allowed: false included", async () => {
    const answer = await upload(example);
    expect(answer.json).toEqual({ status: 'success', data: 'api_testing' });
    const downloaded = await download('api_testing');
    expect(downloaded.json.status).toBe('success');
    expect(downloaded.json.data).toEqual(example);
    expect(JSON.stringify(downloaded.json.data)).toBe(JSON.stringify(example));
    expect(downloaded.json.data.dates.late_submission_allowed).toBe(false);
  });

  it('uploads a download again, into another course too, giving the same JSON but for the id', async () => {
    const document = { ...example, id: uniqueCode('copy') };
    await upload(document);
    const first = (await download(document.id)).json.data;
    const other = await createCourse(world.term, world.users.instructor, { accessGroup: world.course.accessGroup });
    const otherPath = `/${other.term}/${other.course}`;
    expect((await upload({ ...first, id: 'renamed' }, 'instructor', otherPath)).json.data).toBe('renamed');
    const second = (await download('renamed', 'instructor', otherPath)).json.data;
    expect({ ...second, id: first.id }).toEqual(first);
  });

  it('round-trips generated gradeables over HTTP, into another course too (property)', async () => {
    const other = await createCourse(world.term, world.users.instructor, { accessGroup: world.course.accessGroup });
    const otherPath = `/${other.term}/${other.course}`;
    await fc.assert(
      fc.asyncProperty(gradeableDocument, async (generated) => {
        const id = uniqueCode('gen');
        const uploaded = await upload(asJson({ ...generated, id }));
        expect(uploaded.json.status, uploaded.text).toBe('success');
        const first = (await download(id)).json.data;
        expect((await upload({ ...first, id: `${id}_copy` }, 'instructor', otherPath)).json.status).toBe('success');
        const second = (await download(`${id}_copy`, 'instructor', otherPath)).json.data;
        expect({ ...second, id }).toEqual(first);
      }),
      { numRuns: 15 },
    );
  });

  it('shows dates in the course time zone and stores them as instants', async () => {
    const document = { ...example, id: uniqueCode('tz'), dates: { ...example.dates, submission_due_date: '2026-12-01 23:59:59' } };
    await upload(document);
    const [stored] = (await gradeablesOfCourse(world.course.term, world.course.course)).filter((g) => g.id === document.id);
    expect(stored?.dates.submission_due_date).toBe('2026-12-02T04:59:59.000Z');
    expect((await download(document.id)).json.data.dates.submission_due_date).toBe('2026-12-01 23:59:59');
  });

  it('fills in defaults for a minimal document', async () => {
    const answer = await upload({ id: uniqueCode('min'), title: 'Minimal', type: 'Checkpoints' });
    expect(answer.json.status, answer.text).toBe('success');
    const document = (await download(answer.json.data)).json.data;
    expect(document).toMatchObject({ type: 'Checkpoints', syllabus_bucket: 'homework', instructions_url: '', rubric: [] });
    expect(Object.keys(document.dates)).toEqual(['ta_view_start_date', 'grade_start_date', 'grade_due_date', 'grade_released_date']);
  });

  it('fills in left-out dates after a due date given a month away, never before it', async () => {
    const due = daysFromNow(30);
    const document = { id: uniqueCode('due'), title: 'Due later', type: 'Electronic File', ta_grading: true, grade_inquiries: true };
    const answer = await upload({ ...document, dates: { submission_due_date: due } });
    expect(answer.json.status, answer.text).toBe('success');
    const { dates } = (await download(document.id)).json.data as { dates: Record<string, string> };
    const inOrder = [
      'ta_view_start_date',
      'submission_open_date',
      'submission_due_date',
      'grade_start_date',
      'grade_due_date',
      'grade_released_date',
      'grade_inquiry_start_date',
      'grade_inquiry_due_date',
    ].map((name) => dates[name]!);
    expect(inOrder).toEqual([...inOrder].sort());
    // The download uploads again unchanged.
    expect((await upload({ ...(await download(document.id)).json.data, id: `${document.id}_again` })).json.status).toBe('success');
  });

  it('refuses an id that exists', async () => {
    const document = { ...example, id: uniqueCode('dup') };
    expect((await upload(document)).json.status).toBe('success');
    const again = await api.postJson(`${base()}/upload`, document, { ...world.tokens.instructor, Prefer: 'http-status' });
    expect(again.httpStatus).toBe(409);
    expect(again.json.message).toBe('An error has occurred: Gradeable already exists');
  });

  const invalid: [string, (doc: GradeableJson) => unknown, string, string][] = [
    ['no id', (doc) => ({ ...doc, id: undefined }), 'id', 'JSON requires id, title, and type. See documentation for information'],
    ['an empty title', (doc) => ({ ...doc, title: '' }), 'title', 'JSON requires id, title, and type. See documentation for information'],
    ['an unknown type', (doc) => ({ ...doc, type: 'Essay' }), 'type', 'An error has occurred: Invalid type'],
    ['a bad id', (doc) => ({ ...doc, id: '../x' }), 'id', 'The id must be 1 to 64 letters, digits, underscores or hyphens.'],
    ['a long id', (doc) => ({ ...doc, id: 'x'.repeat(65) }), 'id', 'id must be at most 64 characters long.'],
    [
      'an unknown bucket',
      (doc) => ({ ...doc, syllabus_bucket: 'party' }),
      'syllabus_bucket',
      expect.stringMatching(/^An error has occurred: Syllabus bucket must be one of the following: homework, assignment/),
    ],
    [
      'a rubric component without max_value',
      (doc) => ({ ...doc, rubric: [{ ...doc.rubric[0], max_value: undefined }] }),
      'rubric[0].max_value',
      'Rubric component does not have all of the parameters',
    ],
    [
      'VCS without vcs_path',
      (doc) => ({ ...doc, vcs: { repository_type: 'public-github' } }),
      'vcs.vcs_path',
      'VCS gradeables need vcs.repository_type and vcs.vcs_path.',
    ],
    [
      'a team without a size',
      (doc) => ({ ...doc, team_gradeable: { inherit_from: '' } }),
      'team_gradeable.team_size_max',
      'Team gradeables need team_gradeable.team_size_max.',
    ],
    [
      'an unparseable date',
      (doc) => ({ ...doc, dates: { ...doc.dates, submission_due_date: 'next Tuesday' } }),
      'dates.submission_due_date',
      expect.stringMatching(/must be a date of the form YYYY-MM-DD HH:MM:SS/),
    ],
    [
      'a date in a DST gap',
      (doc) => ({ ...doc, dates: { ...doc.dates, submission_due_date: '2026-03-08 02:30:00' } }),
      'dates.submission_due_date',
      expect.stringMatching(/exists in America\/New_York/),
    ],
    [
      'dates out of order',
      (doc) => ({ ...doc, dates: { ...doc.dates, submission_open_date: '9997-01-01 00:00:00' } }),
      'dates.submission_due_date',
      'dates.submission_open_date must not be after dates.submission_due_date.',
    ],
    [
      'an inquiry start before the due date, without TA grading',
      (doc) => ({ ...doc, ta_grading: false, dates: { ...doc.dates, grade_inquiry_start_date: '9990-01-01 00:00:00' } }),
      'dates.grade_inquiry_start_date',
      'dates.submission_due_date must not be after dates.grade_inquiry_start_date.',
    ],
    [
      'a default outside the clamps',
      (doc) => ({ ...doc, rubric: [{ ...doc.rubric[0], default: 9 }] }),
      'rubric[0].default',
      'rubric[0].default must lie between the clamps.',
    ],
    [
      'points that are not numbers',
      (doc) => ({ ...doc, rubric: [{ ...doc.rubric[0], upper_clamp: '2' }] }),
      'rubric[0].upper_clamp',
      'rubric[0].upper_clamp must be a number.',
    ],
    [
      'an empty command',
      (doc) => ({ ...doc, autograding: { test_cases: [{ name: 'a', command: ' ', expect: { exit_code: 0 } }] } }),
      'autograding.test_cases[0].command',
      'autograding.test_cases[0].command cannot be blank.',
    ],
    [
      'a zero time limit',
      (doc) => ({ ...doc, autograding: { test_cases: [{ name: 'a', command: 'x', timeout_seconds: 0 }] } }),
      'autograding.test_cases[0].timeout_seconds',
      'autograding.test_cases[0].timeout_seconds must be more than 0.',
    ],
    [
      'too many test cases',
      (doc) => ({ ...doc, autograding: { test_cases: Array.from({ length: 101 }, (_, i) => ({ name: `t${i}`, command: 'x' })) } }),
      'autograding.test_cases',
      'autograding.test_cases may hold at most 100 entries.',
    ],
    [
      'an escaping file expectation',
      (doc) => ({ ...doc, autograding: { test_cases: [{ name: 'a', command: 'x', expect: { files_exist: ['../etc/passwd'] } }] } }),
      'autograding.test_cases[0].expect.files_exist[0]',
      expect.stringMatching(/relative path/),
    ],
  ];
  for (const [what, change, path, message] of invalid) {
    it(`refuses ${what}, naming the path, and writes nothing`, async () => {
      const id = uniqueCode('bad');
      const document = change({ ...example, id });
      const answer = await upload(document);
      expect(answer.json.status).toBe('fail');
      expect(answer.json.message).toEqual(message);
      expect(answer.json.data).toEqual(expect.arrayContaining([{ path, message }]));
      expect((await gradeablesOfCourse(world.course.term, world.course.course)).some((g) => g.id === id)).toBe(false);
    });
  }

  it('reports every problem, not just the first', async () => {
    const answer = await upload({ ...example, id: uniqueCode('many'), syllabus_bucket: 'x', bulk_upload: 'no', rubric: [{}] });
    expect(answer.json.data.length).toBeGreaterThan(10);
    expect(answer.json.message).toBe(answer.json.data[0].message);
  });

  it('refuses a document over 256 KiB', async () => {
    const answer = await upload({ ...example, id: uniqueCode('big'), instructions_url: '', padding: 'x'.repeat(300 * 1024) });
    expect(answer.json.message).toBe('The gradeable JSON must be at most 262144 bytes.');
  });

  it('answers unknown and unspecified gradeables in the reference words', async () => {
    expect((await download('no_such_gradeable')).json).toEqual({ status: 'fail', message: 'Gradeable does not exist' });
    expect((await download('bad.id')).json).toEqual({ status: 'fail', message: 'Gradeable does not exist' });
    expect((await download('%20')).json).toEqual({ status: 'fail', message: 'Did not specify gradeable' });
    expect((await api.get(`${base()}//download`, world.tokens.instructor)).json).toEqual({
      status: 'fail',
      message: 'Did not specify gradeable',
    });
  });

  it('lets instructors upload, and instructors and access-group staff download', async () => {
    const id = uniqueCode('auth');
    await upload({ ...example, id });
    const uploaders = {
      student: false,
      mentor: false,
      ta: false,
      groupStaff: false,
      otherInstructor: false,
      superuser: false,
      instructor: true,
    } as const;
    for (const [persona, allowed] of Object.entries(uploaders)) {
      const answer = await upload({ ...example, id: uniqueCode('u') }, persona as keyof typeof uploaders);
      expect(answer.json.status, persona).toBe(allowed ? 'success' : 'fail');
    }
    const downloaders = {
      student: false,
      mentor: true,
      ta: true,
      groupStaff: true,
      otherInstructor: false,
      faculty: false,
      instructor: true,
    } as const;
    for (const [persona, allowed] of Object.entries(downloaders)) {
      expect((await download(id, persona as keyof typeof downloaders)).json.status, persona).toBe(allowed ? 'success' : 'fail');
    }
  });
});

describe('hidden test cases in downloads, and reading across the access group', () => {
  const HIDDEN_COMMAND = 'sh hello.sh 42 --secret-input';
  const HIDDEN_OUTPUT = 'The answer is 1764, the secret output\n';
  /** Every field in download order and form, so that a download is this document byte for byte. */
  const testCase = (name: string, command: string, hidden: boolean, expect: Record<string, unknown>) => ({
    name,
    details: `${name} details`,
    command,
    points_available: 2,
    is_extra_credit: false,
    is_hidden: hidden,
    timeout_seconds: 10,
    expect,
  });
  let document: GradeableJson;
  const tokens: Record<string, Record<string, string>> = {};
  const member = async (name: string, group: 1 | 2 | 3 | 4, options: { archived?: boolean } = {}) => {
    const [user, teacher] = await Promise.all([createUser('faculty', name), createUser('faculty', `${name}-teacher`)]);
    const course = await createCourse(world.term, teacher, { accessGroup: world.course.accessGroup, ...options });
    if (group !== 1) await addMember(course, user, group, group === 4 ? '1' : null, group === 4 ? [] : ['1']);
    else await addMember(course, user, 1);
    tokens[name] = { Authorization: await tokenOf(api, user) };
  };
  const downloadAs = (token: Record<string, string>) => api.get(`${base()}/${document.id}/download`, { ...token, Prefer: 'http-status' });

  beforeAll(async () => {
    document = {
      ...example,
      id: uniqueCode('hidden'),
      autograding: {
        test_cases: [
          testCase('Visible', 'sh hello.sh', false, { stdout: 'Hello, World!\n' }),
          testCase('Secret', HIDDEN_COMMAND, true, { stdout: HIDDEN_OUTPUT, files_exist: ['secret.txt'] }),
        ],
      },
    };
    expect((await upload(document)).json.status).toBe('success');
    tokens.siblingInstructor = { Authorization: await tokenOf(api, world.users.siblingInstructor) };
    await Promise.all([
      member('groupMentor', 3),
      member('groupStudent', 4),
      member('archivedInstructor', 1, { archived: true }),
      member('archivedGrader', 2, { archived: true }),
    ]);
  });

  it("gives instructors, of the course or of the group's unarchived courses, the document exactly", async () => {
    for (const token of [world.tokens.instructor, tokens.siblingInstructor!]) {
      const answer = await downloadAs(token);
      expect(answer.json.data).toEqual(document);
      expect(JSON.stringify(answer.json.data)).toBe(JSON.stringify(document));
    }
  });

  it('gives graders hidden test cases without their commands and expected outputs, and marks the document', async () => {
    for (const persona of ['ta', 'mentor', 'groupStaff'] as const) {
      const answer = await downloadAs(world.tokens[persona]);
      expect(answer.httpStatus, persona).toBe(200);
      const { hidden_test_cases_redacted, autograding, ...rest } = answer.json.data;
      expect(hidden_test_cases_redacted, persona).toBe(true);
      const { autograding: full, ...unchanged } = document as GradeableJson & { autograding: { test_cases: unknown[] } };
      expect(rest, persona).toEqual(unchanged);
      const [visible, hidden] = autograding.test_cases;
      expect(visible, persona).toEqual(full.test_cases[0]);
      const { command: _command, expect: _expect, ...shown } = testCase('Secret', HIDDEN_COMMAND, true, {});
      expect(hidden, persona).toEqual(shown);
      expect(answer.text, persona).not.toContain('--secret-input');
      expect(answer.text, persona).not.toContain('1764');
      expect(answer.text, persona).not.toContain('secret.txt');
    }
  });

  it("refuses to create a gradeable from a grader's download, and writes nothing", async () => {
    const redacted = (await downloadAs(world.tokens.ta)).json.data;
    const answer = await api.postJson(
      `${base()}/upload`,
      { ...redacted, id: `${document.id}_again` },
      {
        ...world.tokens.instructor,
        Prefer: 'http-status',
      },
    );
    expect(answer.httpStatus).toBe(422);
    expect(answer.json).toMatchObject({
      status: 'fail',
      message:
        "This gradeable JSON was downloaded without its hidden test cases' commands and expected outputs (hidden_test_cases_redacted): upload a download made by an instructor.",
    });
    expect((await download(`${document.id}_again`)).json).toEqual({ status: 'fail', message: 'Gradeable does not exist' });
  });

  it('refuses limited access graders and students of other courses of the group, and the staff of its archived courses', async () => {
    for (const name of ['groupMentor', 'groupStudent', 'archivedInstructor', 'archivedGrader']) {
      const answer = await downloadAs(tokens[name]!);
      expect([answer.httpStatus, answer.json], name).toEqual([403, { status: 'fail', message: "You don't have access to this endpoint." }]);
    }
  });
});

describe('GET /api/<semester>/<course>/gradeables', () => {
  const day = 24 * 60 * 60 * 1000;
  const iso = (days: number) => new Date(Date.now() + days * day).toISOString().replace(/\.\d{3}Z$/, 'Z');
  let path: string;
  let tokens: Record<'instructor' | 'ta' | 'student', Record<string, string>>;
  let studentId: string;
  const electronic = (id: string, view: number, open: number, due: number, extra: object = {}) => ({
    id,
    title: id,
    type: 'Electronic File',
    dates: {
      ta_view_start_date: iso(view),
      submission_open_date: iso(open),
      submission_due_date: iso(due),
      team_lock_date: iso(due),
      grade_start_date: iso(due + 1),
      grade_due_date: iso(due + 2),
      grade_released_date: iso(due + 3),
      grade_inquiry_start_date: iso(due + 3),
      grade_inquiry_due_date: iso(due + 4),
    },
    ...extra,
  });

  beforeAll(async () => {
    const instructor = await createUser('faculty');
    const ta = await createUser();
    const student = await createUser();
    studentId = student.userId;
    const course = await createCourse(world.term, instructor);
    await addMember(course, ta, 2, null, ['1']);
    await addMember(course, student, 4, '1');
    path = `/${course.term}/${course.course}`;
    tokens = {
      instructor: { Authorization: await tokenOf(api, instructor) },
      ta: { Authorization: await tokenOf(api, ta) },
      student: { Authorization: await tokenOf(api, student) },
    };
    for (const document of [
      electronic('open_vcs', -2, -1, 5, {
        vcs: { repository_type: 'public-github', vcs_path: 'https://github.com/org/{$gradeable_id}-{$user_id}', vcs_subdirectory: 'src' },
      }),
      electronic('beta', -1, 3, 10),
      electronic('future', 5, 6, 10),
      electronic('graded', -30, -29, -20),
    ]) {
      const answer = await api.postJson(`${path}/upload`, document, tokens.instructor);
      expect(answer.json.status, answer.text).toBe('success');
    }
  });

  it('shows students only what has opened, with their own repository', async () => {
    const answer = await api.get(`${path}/gradeables`, tokens.student);
    expect(Object.keys(answer.json.data).sort()).toEqual(['graded', 'open_vcs']);
    expect(answer.json.data.open_vcs).toEqual({
      id: 'open_vcs',
      title: 'open_vcs',
      instructions_url: '',
      syllabus_bucket: 'homework',
      gradeable_type: 'Electronic File',
      section: 2,
      section_name: 'OPEN',
      due_date: { date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.000000$/), timezone_type: 3, timezone: 'America/New_York' },
      vcs_repository: `https://github.com/org/open_vcs-${studentId}`,
      vcs_subdirectory: 'src',
    });
    expect(answer.json.data.graded).toMatchObject({ section_name: 'GRADED', vcs_repository: null });
  });

  it('shows graders from the TA view date and instructors everything', async () => {
    const ta = await api.get(`${path}/gradeables`, tokens.ta);
    expect(Object.keys(ta.json.data).sort()).toEqual(['beta', 'graded', 'open_vcs']);
    expect(ta.json.data.beta.section_name).toBe('BETA');
    const instructor = await api.get(`${path}/gradeables`, tokens.instructor);
    expect(Object.keys(instructor.json.data).sort()).toEqual(['beta', 'future', 'graded', 'open_vcs']);
    expect(instructor.json.data.future.section_name).toBe('FUTURE');
  });

  it("shows a team gradeable's member the repository their team submits from, and one on no team none", async () => {
    const teamVcs = 'team_vcs';
    const document = electronic(teamVcs, -2, -1, 5, {
      team_gradeable: { team_size_max: 3 },
      vcs: { repository_type: 'public-github', vcs_path: 'https://github.com/org/{$gradeable_id}-{$team_id}', vcs_subdirectory: '' },
    });
    expect((await api.postJson(`${path}/upload`, document, tokens.instructor)).json.status).toBe('success');
    const listed = async (persona: keyof typeof tokens) => (await api.get(`${path}/gradeables`, tokens[persona])).json.data[teamVcs];
    // Before the student is on a team, there is no repository to submit from.
    expect((await listed('student')).vcs_repository).toBeNull();
    const team = await api.call('PUT', `${path}/gradeable/${teamVcs}/teams/team1`, {
      headers: { 'Content-Type': 'application/json', ...tokens.instructor },
      body: JSON.stringify({ members: [studentId] }),
    });
    expect(team.json.status, team.text).toBe('success');
    expect((await listed('student')).vcs_repository).toBe(`https://github.com/org/${teamVcs}-team1`);
    // Staff are on no team of it.
    expect((await listed('instructor')).vcs_repository).toBeNull();
    // A gradeable without teams still lists the caller's own.
    expect((await api.get(`${path}/gradeables`, tokens.student)).json.data.open_vcs.vcs_repository).toBe(
      `https://github.com/org/open_vcs-${studentId}`,
    );
  });

  it('is for course members only', async () => {
    expect((await api.get(`${path}/gradeables`, world.tokens.student)).json.message).toBe("You don't have access to this endpoint.");
  });
});

describe('copy_gradeables on course creation', () => {
  it("copies the base course's gradeable definitions", async () => {
    const id = uniqueCode('tocopy');
    await upload({ ...example, id });
    const original = (await download(id)).json.data;
    const title = uniqueCode('copied');
    const answer = await api.postJson(
      '/courses',
      {
        course_semester: world.term,
        course_title: title,
        head_instructor: world.users.instructor.userId,
        base_course: `${world.course.term}|${world.course.course}`,
        copy_gradeables: 'true',
      },
      world.tokens.instructor,
    );
    expect(answer.json.status, answer.text).toBe('success');
    expect((await download(id, 'instructor', `/${world.term}/${title}`)).json.data).toEqual(original);
  });
});
