import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiClient, success, type ApiClient, type Schemas } from '#client/index.ts';
import { createCourse, createTerm } from '../support/courses.ts';
import { daysFromNow } from '../support/dates.ts';
import { vcsGradeableJson } from '../support/gradeables.ts';
import { checkedFetch, startTestApi, type TestApi } from '../support/http.ts';
import { rubricComponent } from '../support/rubric.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * A term run through the API with the typed client only: from a fresh course and its instructor
 * (faculty level), the instructor builds the roster, a grader's sections, a team and the
 * gradeables, changes and deletes them, changes a setting, archives and unarchives the course; a
 * new student changes the password they were given; the grader enrolled over HTTP grades their
 * section only; the course's audit trail names who did each change. Every answer is checked against
 * its route's contract (checkedFetch).
 */
let api: TestApi;
let instructor: TestUser;
let semester: string;
let course: string;
/** The token each client sends, by who holds it. */
const tokens: Record<string, string | undefined> = {};
const clients: Record<string, ApiClient> = {};
const as = (who: string): ApiClient =>
  (clients[who] ??= createApiClient({ baseUrl: api.url.replace(/\/api$/, ''), token: () => tokens[who], fetch: checkedFetch }));
const failure = (answer: { data?: unknown; error?: unknown; response: Response }) => {
  try {
    success(answer as never);
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, httpStatus: error.httpStatus, message: error.message };
    throw error;
  }
  throw new Error('expected a fail answer');
};
const login = async (userId: string, password: string) =>
  success(await as('anyone').POST('/api/token', { body: { user_id: userId, password } })).token;

/** What the new accounts were given, shown once. */
const passwords: Record<string, string> = {};
const STUDENT = 'run.newstudent';
const MENTOR = 'run.mentor';
const header = 'user_id,first_name,last_name,email,registration_section,group';
const classList = [
  header,
  'run.amy,Amy,Ames,amy@example.edu,1,Student',
  'run.bob,Bob,Bell,bob@example.edu,2,Student',
  'run.cat,Cat,Cole,cat@example.edu,1,Student',
  '',
].join('\n');

beforeAll(async () => {
  api = await startTestApi({ workers: 0 });
  instructor = await createUser('faculty', 'prof');
  semester = await createTerm(daysFromNow(-30).slice(0, 10), 'Run Term');
  course = (await createCourse(semester, instructor)).course;
  tokens.instructor = await login(instructor.userId, instructor.password);
}, 60_000);
afterAll(() => api?.close());

const roster = async () => {
  const listed = success(await as('instructor').GET('/api/{semester}/{course}/users', { params: { path: { semester, course } } }));
  return Object.fromEntries(listed.map((member) => [member.user_id, member]));
};

/** Builds the roster: enrols a new student and a limited access grader, imports a class list, moves and drops students. */
async function buildRoster() {
  const prof = as('instructor');
  const member = (user_id: string) => ({ params: { path: { semester, course, user_id } } });

  // A user id without an account: the names and e-mail create it, its password shown this once.
  const student = success(
    await prof.PUT('/api/{semester}/{course}/users/{user_id}', {
      ...member(STUDENT),
      body: { group: 'Student', registration_section: '1', first_name: 'Nora', last_name: 'New', email: 'nora@example.edu' },
    }),
  );
  expect(student).toMatchObject({ user_id: STUDENT, first_name: 'Nora', group: 'Student', reg_section: '1' });
  expect(student.password).toEqual(expect.any(String));
  passwords[STUDENT] = student.password!;

  const mentor = success(
    await prof.PUT('/api/{semester}/{course}/users/{user_id}', {
      ...member(MENTOR),
      body: {
        group: 'Limited Access Grader (Mentor)',
        grading_sections: ['1'],
        first_name: 'Milo',
        last_name: 'Mentor',
        email: 'milo@example.edu',
      },
    }),
  );
  expect(mentor).toMatchObject({ user_id: MENTOR, group: 'Limited Access Grader (Mentor)' });
  passwords[MENTOR] = mentor.password!;
  const graders = success(await prof.GET('/api/{semester}/{course}/graders', { params: { path: { semester, course } } }));
  expect(graders.find((grader) => grader.user_id === MENTOR)).toMatchObject({ reg_section: '1' });

  // The class list goes as a text/csv body: the typed body is the string, passed through as is.
  const importList = (dry_run: boolean) =>
    prof.POST('/api/{semester}/{course}/users/import', {
      params: { path: { semester, course }, query: { dry_run } },
      body: classList,
      bodySerializer: (body) => body as string,
      headers: { 'Content-Type': 'text/csv' },
    });
  const dry = success(await importList(true));
  expect(dry).toMatchObject({ dry_run: true, created: 3, updated: 0, unchanged: 0, dropped: 0, rejected: [] });
  expect(dry.new_accounts.map((account) => account.password)).toEqual([null, null, null]);
  expect(Object.keys(await roster()).sort()).toEqual([instructor.userId, MENTOR, STUDENT].sort());
  expect(failure(await as('anyone').POST('/api/token', { body: { user_id: 'run.amy', password: 'anything-at-all' } })).message).toBe(
    'Could not login using that user id or password.',
  );

  const imported = success(await importList(false));
  expect(imported).toMatchObject({ dry_run: false, created: 3, updated: 0, unchanged: 0, dropped: 0, rejected: [] });
  expect(imported.new_accounts.map((account) => account.user_id).sort()).toEqual(['run.amy', 'run.bob', 'run.cat']);
  for (const account of imported.new_accounts) expect(account.password).toEqual(expect.any(String));
  const again = success(await importList(false));
  expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 3, dropped: 0, new_accounts: [], rejected: [] });

  // Amy moves to section 2; Cat drops the course and shows as dropped (no section).
  const moved = success(
    await prof.PUT('/api/{semester}/{course}/users/{user_id}', { ...member('run.amy'), body: { registration_section: '2' } }),
  );
  expect(moved).toMatchObject({ user_id: 'run.amy', reg_section: '2', group: 'Student', password: null });
  const dropped = success(await prof.DELETE('/api/{semester}/{course}/users/{user_id}', member('run.cat')));
  expect(dropped).toEqual({ user_id: 'run.cat', member: expect.objectContaining({ reg_section: 'NULL', group: 'Student' }) });

  const listed = await roster();
  expect(
    Object.fromEntries(['run.amy', 'run.bob', 'run.cat', STUDENT].map((id) => [id, [listed[id]?.group, listed[id]?.reg_section]])),
  ).toEqual({
    'run.amy': ['Student', '2'],
    'run.bob': ['Student', '2'],
    'run.cat': ['Student', 'NULL'],
    [STUDENT]: ['Student', '1'],
  });
}

/** Forms a team on a team gradeable. */
async function formTeam() {
  const prof = as('instructor');
  const upload = success(
    await prof.POST('/api/{semester}/{course}/upload', {
      params: { path: { semester, course } },
      body: vcsGradeableJson('team_project', { dueInDays: 5, lateDays: 0, team: true }) as Schemas['Gradeable'],
    }),
  );
  expect(upload).toBeTruthy();
  const gradeable = { semester, course, gradeable_id: 'team_project' };
  const team = success(
    await prof.PUT('/api/{semester}/{course}/gradeable/{gradeable_id}/teams/{team_id}', {
      params: { path: { ...gradeable, team_id: 'pair1' } },
      body: { members: [STUDENT, 'run.bob'] },
    }),
  );
  expect(team).toEqual({ team_id: 'pair1', members: [STUDENT, 'run.bob'] });
  // A team of three is over the gradeable's limit of two.
  expect(
    failure(
      await prof.PUT('/api/{semester}/{course}/gradeable/{gradeable_id}/teams/{team_id}', {
        params: { path: { ...gradeable, team_id: 'trio' } },
        body: { members: ['run.amy', 'run.cat', STUDENT] },
      }),
    ).message,
  ).toBe('Teams of team_project have at most 2 members.');
  const teams = success(await prof.GET('/api/{semester}/{course}/gradeable/{gradeable_id}/teams', { params: { path: gradeable } }));
  expect(teams).toEqual([{ team_id: 'pair1', members: [STUDENT, 'run.bob'] }]);
}

/** Uploads a gradeable, downloads it, changes it with If-Match (a stale one is refused), and deletes a mistaken one. */
async function changeGradeables() {
  const prof = as('instructor');
  for (const id of ['hw1', 'hw_mistake']) {
    success(
      await prof.POST('/api/{semester}/{course}/upload', {
        params: { path: { semester, course } },
        body: vcsGradeableJson(id, { dueInDays: 3, lateDays: 1 }) as Schemas['Gradeable'],
      }),
    );
  }
  const path = { semester, course, gradeable_id: 'hw1' };
  const download = () => prof.GET('/api/{semester}/{course}/{gradeable_id}/download', { params: { path } });
  const first = await download();
  const form = success(first);
  // Instructors get the whole gradeable (others get hidden test cases left out, which PUT refuses).
  if ('hidden_test_cases_redacted' in form) throw new Error('the instructor got a redacted gradeable');
  const etag = first.response.headers.get('ETag');
  expect(etag).toMatch(/^"/);
  expect(form).toMatchObject({ id: 'hw1', title: 'hw1' });

  const replace = (body: Schemas['Gradeable'], ifMatch: string) =>
    prof.PUT('/api/{semester}/{course}/gradeable/{gradeable_id}', {
      params: { path, header: { 'If-Match': ifMatch, Prefer: 'http-status' } },
      body,
    });
  const changed = await replace({ ...form, title: 'Homework 1' }, etag!);
  expect(success(changed)).toMatchObject({ id: 'hw1', title: 'Homework 1' });
  const second = await download();
  expect(success(second)).toEqual({ ...form, title: 'Homework 1' });
  expect(second.response.headers.get('ETag')).not.toBe(etag);
  expect(changed.response.headers.get('ETag')).toBe(second.response.headers.get('ETag'));

  // Someone else's change meanwhile: the old ETag no longer matches, and nothing is written.
  const stale = await replace({ ...form, title: 'Overwritten' }, etag!);
  expect(failure(stale)).toMatchObject({ status: 'fail', httpStatus: 412 });
  expect(success(await download()).title).toBe('Homework 1');

  const deleted = success(
    await prof.DELETE('/api/{semester}/{course}/gradeable/{gradeable_id}', {
      params: { path: { semester, course, gradeable_id: 'hw_mistake' } },
    }),
  );
  expect(deleted).toMatchObject({ id: 'hw_mistake' });
  const gradeables = success(await prof.GET('/api/{semester}/{course}/gradeables', { params: { path: { semester, course } } }));
  expect(Object.keys(gradeables)).toContain('hw1');
  expect(Object.keys(gradeables)).not.toContain('hw_mistake');
}

/** Reads and sets a course setting, archives the course and unarchives it. */
async function changeSettings() {
  const prof = as('instructor');
  const path = { semester, course };
  const settings = () => prof.GET('/api/courses/{semester}/{course}/config', { params: { path } });
  expect(success(await settings()).config).toMatchObject({ course_name: 'Test Course', archived: false, course_status: 1 });
  const set = success(
    await prof.POST('/api/courses/{semester}/{course}/config', {
      params: { path },
      body: { name: 'course_name', entry: 'Run Through 101' },
    }),
  );
  expect(set.config.course_name).toBe('Run Through 101');
  expect(
    failure(await prof.POST('/api/courses/{semester}/{course}/config', { params: { path }, body: { name: 'colour', entry: 'red' } }))
      .status,
  ).toBe('fail');

  success(await prof.POST('/api/courses/{semester}/{course}/config/archive', { params: { path } }));
  expect(success(await settings()).config).toMatchObject({ archived: true, course_status: 2, course_name: 'Run Through 101' });
  success(await prof.POST('/api/courses/{semester}/{course}/config/unarchive', { params: { path } }));
  expect(success(await settings()).config).toMatchObject({ archived: false, course_status: 1 });
}

/** The new student logs in with the password they were given and changes it. */
async function studentChangesPassword() {
  const student = as('student');
  const given = passwords[STUDENT]!;
  tokens.student = await login(STUDENT, given);
  expect(success(await student.GET('/api/me')).user_id).toBe(STUDENT);

  const change = (new_password: string) => student.POST('/api/me/password', { body: { current_password: given, new_password } });
  expect(failure(await change('short')).message).toBe('The password must be at least 10 characters long.');
  expect(failure(await change(STUDENT)).message).toBe('The password cannot be the user id.');
  const stillOld = success(await student.GET('/api/me'));
  expect(stillOld.user_id).toBe(STUDENT);

  const newPassword = 'a walk along the Hudson at dusk';
  const { token } = success(await change(newPassword));
  // The token held before the change no longer works; the one the answer carries does.
  expect(failure(await student.GET('/api/me')).message).toBe('Unauthenticated access. Please log in.');
  tokens.student = token;
  expect(success(await student.GET('/api/me')).user_id).toBe(STUDENT);
  expect(failure(await as('anyone').POST('/api/token', { body: { user_id: STUDENT, password: given } })).status).toBe('fail');
  expect(await login(STUDENT, newPassword)).toEqual(expect.any(String));
}

/** The limited access grader enrolled over HTTP grades their section only. */
async function graderGradesTheirSection() {
  const prof = as('instructor');
  success(
    await prof.POST('/api/{semester}/{course}/upload', {
      params: { path: { semester, course } },
      body: {
        id: 'quiz1',
        title: 'Quiz 1',
        type: 'Numeric',
        syllabus_bucket: 'quiz',
        instructions_url: '',
        autograding_config_path: '',
        dates: {
          ta_view_start_date: daysFromNow(-3),
          grade_start_date: daysFromNow(-2),
          grade_due_date: daysFromNow(5),
          grade_released_date: daysFromNow(6),
        },
        rubric: [rubricComponent('Q1', { lower_clamp: 0, default: 0, max_value: 10, upper_clamp: 10, marks: [] })],
      },
    }),
  );
  tokens.mentor = await login(MENTOR, passwords[MENTOR]!);
  const mentor = as('mentor');
  const grade = (user_id: string) =>
    mentor.POST('/api/{semester}/{course}/gradeable/{gradeable_id}/grading/{user_id}', {
      params: { path: { semester, course, gradeable_id: 'quiz1', user_id }, header: { Prefer: 'http-status' } },
      body: { component_id: 0, custom_points: 8 },
    });
  // The new student is in section 1, which the grader was given.
  expect(success(await grade(STUDENT))).toMatchObject({ tagrading_score: 8 });
  const read = success(
    await mentor.GET('/api/{semester}/{course}/gradeable/{gradeable_id}/grading/{user_id}', {
      params: { path: { semester, course, gradeable_id: 'quiz1', user_id: STUDENT } },
    }),
  );
  expect(read.history.map((entry) => entry.grader_id)).toEqual([MENTOR]);
  // Amy was moved to section 2.
  expect(failure(await grade('run.amy'))).toEqual({ status: 'fail', httpStatus: 403, message: 'You do not grade section 2.' });
  // Graders cannot change the roster.
  expect(
    failure(
      await mentor.PUT('/api/{semester}/{course}/users/{user_id}', {
        params: { path: { semester, course, user_id: MENTOR } },
        body: { grading_sections: ['1', '2'] },
      }),
    ).message,
  ).toBe("You don't have access to this endpoint.");
}

/** The course audit trail lists each change with who made it. */
async function auditTrailNamesEveryChange() {
  const trail = success(
    await as('instructor').GET('/api/{semester}/{course}/audit', { params: { path: { semester, course }, query: { page_size: '500' } } }),
  );
  const made = trail.map((entry) => `${entry.actor} ${entry.action} ${entry.target}`);
  const by = instructor.userId;
  for (const change of [
    `${by} member.enrolled ${STUDENT}`,
    `${by} member.enrolled ${MENTOR}`,
    `${by} member.enrolled run.amy`,
    `${by} member.enrolled run.bob`,
    `${by} member.enrolled run.cat`,
    `${by} member.changed run.amy`,
    `${by} member.dropped run.cat`,
    `${by} team.created team_project/pair1`,
    `${by} gradeable.created team_project`,
    `${by} gradeable.created hw1`,
    `${by} gradeable.replaced hw1`,
    `${by} gradeable.deleted hw_mistake`,
    `${by} course.setting-changed course_name`,
    `${by} course.archived ${semester}/${course}`,
    `${by} course.unarchived ${semester}/${course}`,
  ]) {
    expect(made, change).toContain(change);
  }
  // Importing the same list again, the stale If-Match, the refused team and password: no entries.
  expect(made.filter((entry) => entry.endsWith(' run.amy'))).toHaveLength(2);
  expect(made.filter((entry) => entry.includes('gradeable.replaced'))).toHaveLength(1);
  expect(made.some((entry) => entry.includes('trio'))).toBe(false);
  // Newest first.
  const times = trail.map((entry) => entry.at);
  expect([...times].sort().reverse()).toEqual(times);
  // The move's entry says what changed.
  const move = trail.find((entry) => entry.action === 'member.changed' && entry.target === 'run.amy')!;
  expect([move.before, move.after]).toEqual([
    expect.objectContaining({ registration_section: '1' }),
    expect.objectContaining({ registration_section: '2' }),
  ]);
}

// One flow: each step works on what the steps before it built.
describe('an instructor runs a course over HTTP with the typed client', () => {
  it('roster, grader sections, team, gradeables, settings, archive; a new student changes their password; the grader grades their section; the audit trail names every change', async () => {
    await buildRoster();
    await formTeam();
    await changeGradeables();
    await changeSettings();
    await studentChangesPassword();
    await graderGradesTheirSection();
    await auditTrailNamesEveryChange();
  }, 120_000);
});
