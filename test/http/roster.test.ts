import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditScopeKey } from '#shared/data/audit.ts';
import { courseId } from '#shared/data/keys.ts';
import { queryAll } from '#shared/data/paging.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { addMember, createCourse, createCourseWorld, tokenOf, type CourseWorld } from '../support/courses.ts';
import { enrollmentsOfCourse } from '#shared/data/enrollments.ts';
import { createUser } from '../support/users.ts';

/**
 * The roster over HTTP: an instructor (or a superuser) enrols, changes and drops members and
 * imports class lists; every change lands with its audit entry, bad input changes nothing.
 */
let api: TestApi;
let world: CourseWorld;
type Persona = keyof CourseWorld['tokens'];
const base = () => `/${world.course.term}/${world.course.course}`;
const H = (persona: Persona = 'instructor') => ({ ...world.tokens[persona], Prefer: 'http-status' });
const put = (userId: string, body: unknown, persona: Persona = 'instructor') =>
  api.call('PUT', `${base()}/users/${userId}`, {
    headers: { 'Content-Type': 'application/json', ...H(persona) },
    body: JSON.stringify(body),
  });
const drop = (userId: string, persona: Persona = 'instructor') => api.call('DELETE', `${base()}/users/${userId}`, { headers: H(persona) });
const importCsv = (csv: string | Buffer, query = '', headers: Record<string, string> = { 'Content-Type': 'text/csv' }) =>
  api.call('POST', `${base()}/users/import${query}`, { headers: { ...headers, ...H() }, body: csv });
const usersList = async (list: 'users' | 'graders' = 'users') => {
  const answer = await api.get(`${base()}/${list}`, H());
  expect(answer.json.status, answer.text).toBe('success');
  return Object.fromEntries((answer.json.data as { user_id: string }[]).map((user) => [user.user_id, user])) as Record<
    string,
    Record<string, string>
  >;
};
const auditOfCourse = () =>
  queryAll({
    TableName: tableName(tables.audit),
    KeyConditionExpression: '#scope = :scope',
    ExpressionAttributeNames: { '#scope': 'scope' },
    ExpressionAttributeValues: { ':scope': auditScopeKey({ courseId: courseId(world.course.term, world.course.course) }) },
    ConsistentRead: true,
  });
const header = 'user_id,first_name,last_name,email,registration_section,group';

beforeAll(async () => {
  api = await startTestApi();
  world = await createCourseWorld(api);
});
afterAll(() => api.close());

describe('PUT /api/{semester}/{course}/users/{user_id}', () => {
  it('creates an account for a new user id, answers its password once, and lists the member', async () => {
    const answer = await put('new.student', {
      group: 'Student',
      registration_section: '2',
      first_name: 'Nina',
      last_name: 'New',
      email: 'nina@example.edu',
    });
    expect(answer.httpStatus, answer.text).toBe(200);
    expect(answer.json.data).toMatchObject({
      user_id: 'new.student',
      first_name: 'Nina',
      reg_section: '2',
      rot_section: 'NULL',
      group: 'Student',
    });
    expect(answer.json.data.password).toMatch(/^[\w-]{16}$/);
    const login = await api.postJson('/token', { user_id: 'new.student', password: answer.json.data.password });
    expect(login.json.status, login.text).toBe('success');
    expect((await usersList())['new.student']).toMatchObject({ reg_section: '2', group: 'Student' });
    const entry = (await auditOfCourse()).find((item) => item.target === 'new.student');
    expect(entry).toMatchObject({
      actor: world.users.instructor.userId,
      action: 'member.enrolled',
      after: { group: 'Student', registration_section: '2' },
    });
  });

  it("gives a limited access grader their grading sections (the graders list shows them), keeping the account's own names", async () => {
    const grader = await createUser('user', 'grader');
    const answer = await put(grader.userId, {
      group: 'Limited Access Grader (Mentor)',
      grading_sections: ['2', '1'],
      first_name: 'Ignored',
    });
    expect(answer.json.data).toMatchObject({ first_name: 'Given', group: 'Limited Access Grader (Mentor)', password: null });
    expect((await usersList('graders'))[grader.userId]).toMatchObject({ reg_section: '1,2' });
    const student = await put(grader.userId, { group: 'Student', registration_section: '3' });
    expect(student.json.data).toMatchObject({ group: 'Student', reg_section: '3' });
    expect((await usersList('graders'))[grader.userId]).toBeUndefined();
  });

  it('lets a superuser change a roster; an unchanged member writes nothing', async () => {
    const user = await createUser();
    expect((await put(user.userId, { group: 'student', registration_section: '1' }, 'superuser')).httpStatus).toBe(200);
    const entries = (await auditOfCourse()).length;
    expect((await put(user.userId, { registration_section: '1' })).json.data).toMatchObject({ reg_section: '1' });
    expect((await auditOfCourse()).length).toBe(entries);
  });

  it('refuses bad input with a clear fail and changes nothing', async () => {
    const user = await createUser();
    const cases: [unknown, number, string][] = [
      [{}, 400, 'A new member needs the field group'],
      [{ group: 'Professor' }, 400, 'The group "Professor" is not one of Instructor,'],
      [{ group: 'Student', registration_section: 7 }, 400, 'The field registration_section must be a string.'],
      [{ group: 'Student', registration_section: '1 OR 1=1' }, 400, 'The registration_section "1 OR 1=1" must be'],
      [{ group: 'Student', grading_sections: ['1'] }, 400, 'Only graders have grading_sections'],
      [{ group: 'Student', grading_sections: [1] }, 400, 'The field grading_sections must be a list of registration sections.'],
    ];
    for (const [body, status, message] of cases) {
      const answer = await put(user.userId, body);
      expect([answer.httpStatus, answer.json.status], answer.text).toEqual([status, 'fail']);
      expect(answer.json.message).toContain(message);
    }
    const noAccount = await put('nobody.here', { group: 'Student' });
    expect([noAccount.httpStatus, noAccount.json.message]).toEqual([
      404,
      'User nobody.here has no account: send first_name, last_name and email to create it.',
    ]);
    const formula = await put('formula.user', { group: 'Student', first_name: '=cmd()', last_name: 'X', email: 'f@example.edu' });
    expect(formula.json.message).toBe('The field first_name starts with "=", which spreadsheets run as a formula.');
    const listed = await usersList();
    expect([listed[user.userId], listed['nobody.here'], listed['formula.user']]).toEqual([undefined, undefined, undefined]);
  });
});

describe('DELETE /api/{semester}/{course}/users/{user_id}', () => {
  it('drops a student, who stays listed with no section; staff leave the lists', async () => {
    const student = await createUser('user', 'leaver');
    await addMember(world.course, student, 4, '1');
    const answer = await drop(student.userId);
    expect(answer.json.data).toMatchObject({ user_id: student.userId, member: { reg_section: 'NULL', group: 'Student' } });
    expect((await usersList())[student.userId]).toMatchObject({ reg_section: 'NULL' });
    const ta = await createUser('user', 'exta');
    await addMember(world.course, ta, 2, null, ['1']);
    expect((await drop(ta.userId)).json.data).toEqual({ user_id: ta.userId, member: null });
    expect((await usersList())[ta.userId]).toBeUndefined();
    expect((await drop(ta.userId)).json.message).toBe(`User ${ta.userId} is not in this course.`);
    const actions = (await auditOfCourse()).filter((item) => [student.userId, ta.userId].includes(item.target as string));
    expect(actions.map((item) => item.action).sort()).toEqual(['member.dropped', 'member.removed']);
  });

  it('never drops the last instructor, even when two drops of the last two run at once', async () => {
    const [first, second] = await Promise.all([createUser('faculty', 'first'), createUser('faculty', 'second')]);
    const course = await createCourse(world.term, first);
    await addMember(course, second, 1);
    const dropAs = (userId: string) => api.call('DELETE', `/${course.term}/${course.course}/users/${userId}`, { headers: H('superuser') });
    const answers = await Promise.all([dropAs(first.userId), dropAs(second.userId)]);
    const succeeded = answers.filter((answer) => answer.json.status === 'success');
    expect(succeeded.length, answers.map((answer) => answer.text).join('\n')).toBeLessThanOrEqual(1);
    for (const answer of answers.filter((one) => one.json.status !== 'success')) {
      expect(answer.json.message).toMatch(/is the last instructor of the course; it must keep one\.|changed meanwhile/);
    }
    const instructors = (await enrollmentsOfCourse(course.term, course.course)).filter((member) => member.group === 1);
    expect(instructors.length).toBe(1);
    // Whoever is left cannot go.
    const last = instructors[0]?.userId ?? '';
    const refused = await dropAs(last);
    expect([refused.httpStatus, refused.json.message]).toEqual([409, `${last} is the last instructor of the course; it must keep one.`]);
  });
});

describe('POST /api/{semester}/{course}/users/import', () => {
  const list = [
    `\uFEFF${header}`,
    'imp.amy,"Amy, Jr.",Ames,amy@example.edu,1,Student',
    '',
    'imp.bob,Bob,"O""Brien",bob@example.edu,2,4',
    'imp.amy,Amy,Again,amy@example.edu,1,4',
    'imp.cat,=HYPERLINK("x"),Cole,cat@example.edu,1,4',
    'imp.dan,Dan,Doe,dan@example.edu,1,limited access grader',
    '',
  ].join('\r\n');

  it('dry run reports what would change and writes nothing', async () => {
    const answer = await importCsv(list, '?dry_run=true');
    expect(answer.json.data, answer.text).toMatchObject({ dry_run: true, created: 3, updated: 0, dropped: 0 });
    expect(answer.json.data.new_accounts).toEqual([
      { user_id: 'imp.amy', password: null },
      { user_id: 'imp.bob', password: null },
      { user_id: 'imp.dan', password: null },
    ]);
    expect((await usersList())['imp.amy']).toBeUndefined();
  });

  it('imports a text/csv body (BOM, quoted commas, blank lines), rejecting duplicate and formula rows by line; again changes nothing', async () => {
    const first = await importCsv(list);
    expect(first.json.data, first.text).toMatchObject({
      dry_run: false,
      created: 3,
      updated: 0,
      unchanged: 0,
      dropped: 0,
      rejected: [
        { line: 5, reason: 'User imp.amy appears more than once; the first row counts.' },
        { line: 6, reason: 'The first_name starts with "=", which spreadsheets run as a formula.' },
      ],
    });
    expect(first.json.data.new_accounts.map((account: { password: string }) => account.password.length)).toEqual([16, 16, 16]);
    const listed = await usersList();
    expect(listed['imp.amy']).toMatchObject({ first_name: 'Amy, Jr.', reg_section: '1' });
    expect(listed['imp.bob']).toMatchObject({ last_name: "O'Brien".replace("'", '"') });
    const entries = (await auditOfCourse()).length;
    const again = await importCsv(list);
    expect(again.json.data).toMatchObject({ created: 0, updated: 0, unchanged: 3, dropped: 0, new_accounts: [] });
    expect((await auditOfCourse()).length).toBe(entries);
  });

  it('takes the multipart file field class_list, and drops the students missing from it with drop_missing', async () => {
    const form = new FormData();
    form.append('class_list', new Blob([`${header}\nimp.amy,Amy,Ames,amy@example.edu,3,4\n`], { type: 'text/csv' }), 'list.csv');
    const answer = await api.call('POST', `${base()}/users/import?drop_missing=1`, { headers: H(), body: form });
    expect(answer.json.data, answer.text).toMatchObject({ created: 0, updated: 1, rejected: [] });
    expect(answer.json.data.dropped).toBeGreaterThanOrEqual(2);
    const listed = await usersList();
    expect([listed['imp.amy']?.reg_section, listed['imp.bob']?.reg_section, listed[world.users.student.userId]?.reg_section]).toEqual([
      '3',
      'NULL',
      'NULL',
    ]);
    // Staff stay.
    expect(listed[world.users.ta.userId]).toMatchObject({ group: 'Full Access Grader (Grad TA)' });
    await addMember(world.course, world.users.student, 4, '1');
    await addMember(world.course, world.users.student2, 4, '2');
  });

  it('answers a clear fail for no list, a file that is not CSV or lacks columns, and a body past the limit', async () => {
    const none = await importCsv('');
    expect([none.httpStatus, none.json.message]).toEqual([
      400,
      'Send the class list as a text/csv body or as the multipart file field class_list.',
    ]);
    const garbage = await importCsv(Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919) % 256)));
    expect([garbage.httpStatus, garbage.json.status]).toEqual([400, 'fail']);
    expect(garbage.json.message).toMatch(/^The class list (is not readable CSV|header lacks)/);
    const huge = await importCsv(Buffer.alloc(10 * 1024 * 1024, 'x'));
    expect([huge.httpStatus, huge.json.status]).toEqual([413, 'fail']);
    const json = await api.call('POST', `${base()}/users/import`, {
      headers: { 'Content-Type': 'application/json', ...H() },
      body: JSON.stringify({ class_list: 7 }),
    });
    expect(json.json.message).toBe('The field class_list must be a CSV file.');
  });
});

describe('instructors below faculty level', () => {
  it('change their course’s roster, but archiving it is for instructors with faculty level (and superusers)', async () => {
    const [head, lead, student] = await Promise.all([
      createUser('faculty', 'head'),
      createUser('user', 'lead'),
      createUser('user', 'pupil'),
    ]);
    const course = await createCourse(world.term, head);
    await addMember(course, lead, 1);
    const headers = { Authorization: await tokenOf(api, lead), Prefer: 'http-status' };
    const enrolled = await api.call('PUT', `/${course.term}/${course.course}/users/${student.userId}`, {
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({ group: 'Student', registration_section: '1' }),
    });
    expect(enrolled.json.data, enrolled.text).toMatchObject({ user_id: student.userId, group: 'Student', reg_section: '1' });
    const archived = await api.postJson(`/courses/${course.term}/${course.course}/config/archive`, {}, headers);
    expect([archived.httpStatus, archived.json.message]).toEqual([403, 'Only instructors can archive a course']);
    const config = await api.get(`/courses/${course.term}/${course.course}/config`, headers);
    expect(config.json.data, config.text).toMatchObject({ config: { archived: false } });
  });
});
