import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getItems } from '#shared/data/items.ts';
import { auditEntries } from '#shared/data/audit.ts';
import { courseRef, setArchived } from '#shared/data/courses.ts';
import {
  copyHolder,
  enrollmentItem,
  enrollmentRef,
  enrollmentsTableName,
  putEnrollment,
  type Enrollment,
  type EnrollmentCopies,
} from '#shared/data/enrollments.ts';
import { putTerm } from '#shared/data/terms.ts';
import { putUser, usersTableName } from '#shared/data/users.ts';
import { fillCopies, listingCopyOf, memberCopyOf, revisionOf, sourceUnchanged } from '#shared/data/enrollment-copies.ts';
import { settleCopies } from '#shared/data/settle-copies.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { dynamo } from '#shared/data/client.ts';
import { courseId } from '#shared/data/keys.ts';
import { readClassList } from '#shared/courses/class-list.ts';
import { importClassList } from '#shared/courses/enroll.ts';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startTestApi, type TestApi } from '../support/http.ts';
import { addMember, createCourse, createCourseWorld, createTerm, tokenOf, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { createUser } from '../support/users.ts';

let api: TestApi;
let world: CourseWorld;
beforeAll(async () => {
  api = await startTestApi();
  world = await createCourseWorld(api);
});
afterAll(() => api.close());

const FORBIDDEN = { status: 'fail', message: "You don't have access to this endpoint." };
const NO_COURSE = { status: 'fail', message: 'Failed to load course. Check course title and ensure it exists.' };

describe('GET /api/courses', () => {
  it("lists a student's current courses with the fields clients read", async () => {
    const answer = await api.get('/courses', world.tokens.student);
    expect(answer.json).toEqual({
      status: 'success',
      data: {
        unarchived_courses: [
          {
            semester: world.term,
            title: world.course.course,
            display_name: 'Test Course',
            display_semester: 'Fall 2026',
            user_group: 4,
            registration_section: '1',
          },
        ],
        archived_courses: [],
      },
    });
  });

  it('orders by group, then term start (newest first), then course code; archived only where instructor', async () => {
    const teacher = await createUser('faculty');
    const student = await createUser();
    const older = await createTerm('2025-01-10', 'Spring 2025');
    const newer = await createTerm('2026-01-10', 'Spring 2026');
    const a = await createCourse(older, teacher, { code: 'a_course' });
    const b = await createCourse(newer, teacher, { code: 'b_course' });
    const c = await createCourse(newer, teacher, { code: 'c_course' });
    const taught = await createCourse(newer, teacher, { code: 'z_old', archived: true });
    const other = await createCourse(newer, await createUser('faculty'), { code: 'y_course' });
    const attendedArchived = await createCourse(older, await createUser('faculty'), { archived: true });
    await Promise.all([
      addMember(a, student, 2),
      addMember(b, student, 4, '3'),
      addMember(c, student, 4, '1'),
      addMember(other, student, 1),
      addMember(taught, student, 1),
      addMember(attendedArchived, student, 4, '1'),
    ]);
    const answer = await api.get('/courses', { Authorization: await tokenOf(api, student) });
    const codes = (list: { title: string; semester: string }[]) => list.map((course) => `${course.semester}/${course.title}`);
    expect(codes(answer.json.data.unarchived_courses)).toEqual([
      `${newer}/y_course`,
      `${older}/a_course`,
      `${newer}/b_course`,
      `${newer}/c_course`,
    ]);
    expect(codes(answer.json.data.archived_courses)).toEqual([`${newer}/z_old`]);
  });

  it('leaves out a course a student was dropped from', async () => {
    const answer = await api.get('/courses', { Authorization: await tokenOf(api, world.users.dropped) });
    expect(answer.json.data).toEqual({ unarchived_courses: [], archived_courses: [] });
  });

  it("lets superusers, and only them, see another user's courses", async () => {
    const asSuperuser = await api.get(`/courses?user_id=${world.users.student.userId}`, world.tokens.superuser);
    expect(asSuperuser.json.data.unarchived_courses).toHaveLength(1);
    expect((await api.get(`/courses?user_id=${world.users.student.userId}`, world.tokens.faculty)).json).toEqual(FORBIDDEN);
    const hostile = await api.get(`/courses?user_id=${'x'.repeat(3000)}`, world.tokens.superuser);
    expect(hostile.json).toEqual({ status: 'success', data: { unarchived_courses: [], archived_courses: [] } });
    expect((await api.get('/courses', {})).json.message).toBe('Unauthenticated access. Please log in.');
  });
});

describe('GET /api/<semester>/<course>/users and /graders', () => {
  it('lists everyone with the reference record fields, ordered by section then user id', async () => {
    const { users, course } = world;
    const answer = await api.get(`/${course.term}/${course.course}/users`, world.tokens.instructor);
    expect(answer.json.status).toBe('success');
    const records = answer.json.data as Record<string, string>[];
    expect(records.map((record) => record.user_id)).toEqual([
      users.student.userId,
      users.student2.userId,
      ...[users.dropped, users.instructor, users.mentor, users.ta].map((user) => user.userId).sort(),
    ]);
    expect(records[0]).toEqual({
      first_name: 'Given',
      last_name: 'Family',
      user_id: users.student.userId,
      email: users.student.email,
      reg_section: '1',
      rot_section: 'NULL',
      group: 'Student',
      given_name: 'Given',
      family_name: 'Family',
    });
    expect(Object.keys(records[0]!)).toEqual([
      'first_name',
      'last_name',
      'user_id',
      'email',
      'reg_section',
      'rot_section',
      'group',
      'given_name',
      'family_name',
    ]);
    const instructor = records.find((record) => record.user_id === users.instructor.userId)!;
    expect(instructor).toMatchObject({ reg_section: 'NULL', group: 'Instructor' });
  });

  it('lists graders with All for instructors and the sections each grader grades', async () => {
    const { users, course } = world;
    const answer = await api.get(`/${course.term}/${course.course}/graders`, world.tokens.instructor);
    const bySection = Object.fromEntries(
      (answer.json.data as Record<string, string>[]).map((record) => [record.user_id, [record.reg_section, record.group]]),
    );
    expect(bySection).toEqual({
      [users.instructor.userId]: ['All', 'Instructor'],
      [users.ta.userId]: ['1,2', 'Full Access Grader (Grad TA)'],
      [users.mentor.userId]: ['1', 'Limited Access Grader (Mentor)'],
    });
    expect((answer.json.data as { user_id: string }[]).map((record) => record.user_id)).toEqual([
      users.mentor.userId,
      users.ta.userId,
      users.instructor.userId,
    ]);
  });

  it('answers the same under /api/courses/<semester>/<course>/', async () => {
    const { course } = world;
    for (const list of ['users', 'graders']) {
      const moved = await api.get(`/courses/${course.term}/${course.course}/${list}`, world.tokens.instructor);
      const original = await api.get(`/${course.term}/${course.course}/${list}`, world.tokens.instructor);
      expect(moved.json).toEqual(original.json);
    }
  });

  it('checks the token before telling whether a course exists', async () => {
    expect((await api.get('/nope/nothing/users')).json.message).toBe('Unauthenticated access. Please log in.');
    expect((await api.get('/nope/nothing/users', world.tokens.instructor)).json).toEqual(NO_COURSE);
    const real = await api.get('/nope/nothing/users', { ...world.tokens.instructor, Prefer: 'http-status' });
    expect(real.httpStatus).toBe(404);
  });

  it('treats hostile course segments as unknown courses', async () => {
    for (const path of [
      '/F26/Sample/users',
      `/${world.term}/..%2F..%2Fetc/users`,
      `/${world.term}/a%23b/users`,
      `/${world.term}/${'x'.repeat(300)}/users`,
    ]) {
      expect((await api.get(path, world.tokens.instructor)).json, path).toEqual(NO_COURSE);
    }
  });
});

// Enrollment items carry copies of the member's profile and of the course and term, so each list
// is one Query; these fail if a copy goes stale or an item without one is misread.
describe('the lists stay right when profiles, courses and terms change', () => {
  const storedEnrollment = async (term: string, course: string, userId: string) =>
    (await dynamo().send(new GetCommand({ TableName: enrollmentsTableName(), Key: { courseId: courseId(term, course), userId } }))).Item;
  const storedUser = async (userId: string) => (await dynamo().send(new GetCommand({ TableName: usersTableName(), Key: { userId } }))).Item;
  /** Marks a profile as mid-change (as a change does first), or clears the mark. */
  const markProfileChanging = (userId: string, changing: boolean) =>
    dynamo().send(
      new UpdateCommand({
        TableName: usersTableName(),
        Key: { userId },
        UpdateExpression: changing ? 'SET copyPending = :token' : 'REMOVE copyPending',
        ...(changing ? { ExpressionAttributeValues: { ':token': 'a change in progress' } } : {}),
      }),
    );
  const usersList = async (list: 'users' | 'graders', term: string, course: string, token: Record<string, string>) =>
    Object.fromEntries(
      ((await api.get(`/${term}/${course}/${list}`, token)).json.data as Record<string, string>[]).map((record) => [
        record.user_id,
        record,
      ]),
    );

  it("shows a profile a class-list import in another course changed, in every course's users and graders lists", async () => {
    const teacher = await createUser('faculty');
    const [student, mentor] = [await createUser(), await createUser()];
    const term = await createTerm('2026-08-24', 'Fall 2026');
    const [first, second] = [await createCourse(term, teacher), await createCourse(term, teacher)];
    await addMember(first, student, 4, '1');
    await addMember(first, mentor, 3, null, ['1']);
    const token = { Authorization: await tokenOf(api, teacher) };
    expect((await usersList('users', term, first.course, token))[student.userId]).toMatchObject({ first_name: 'Given' });

    const csv = [
      'user_id,first_name,last_name,email,registration_section,group',
      `${student.userId},Ada,Lovelace,ada@example.edu,2,student`,
      `${mentor.userId},Grace,Hopper,grace@example.edu,1,student`,
    ].join('\n');
    await importClassList(second, readClassList(csv), { actor: 'admin', updateProfiles: true });

    const users = await usersList('users', term, first.course, token);
    expect(users[student.userId]).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.edu', reg_section: '1' });
    expect((await usersList('graders', term, first.course, token))[mentor.userId]).toMatchObject({
      given_name: 'Grace',
      family_name: 'Hopper',
      email: 'grace@example.edu',
    });
    expect((await usersList('users', term, second.course, token))[mentor.userId]).toMatchObject({ first_name: 'Grace', reg_section: '1' });
    // The lists answer from the copies, now holding the new profile.
    expect((await storedEnrollment(term, first.course, student.userId))?.memberCopy).toMatchObject({ givenName: 'Ada', v: 1 });
    expect((await storedEnrollment(term, second.course, mentor.userId))?.memberCopy).toMatchObject({ givenName: 'Grace', v: 1 });
    // Each account's trail says who changed its profile, and from what.
    expect((await auditEntries({ userId: student.userId }, 10, undefined)).entries).toEqual([
      expect.objectContaining({
        actor: 'admin',
        action: 'user.changed',
        target: student.userId,
        before: expect.objectContaining({ first_name: 'Given' }),
        after: expect.objectContaining({ first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.edu' }),
      }),
    ]);
  });

  it('lists a course with its term renamed and moves it when archived', async () => {
    const teacher = await createUser('faculty');
    const student = await createUser();
    const term = await createTerm('2026-01-10', 'Spring 2026');
    const course = await createCourse(term, teacher);
    await addMember(course, student, 4, '1');
    const asStudent = { Authorization: await tokenOf(api, student) };
    const asTeacher = { Authorization: await tokenOf(api, teacher) };
    const listed = async (token: Record<string, string>) => (await api.get('/courses', token)).json.data;
    expect((await listed(asStudent)).unarchived_courses).toMatchObject([{ title: course.course, display_semester: 'Spring 2026' }]);

    await putTerm({ termId: term, name: 'Spring 2026 (renamed)', startDate: '2026-01-12', endDate: '2026-05-01' });
    expect((await listed(asStudent)).unarchived_courses).toMatchObject([
      { title: course.course, display_semester: 'Spring 2026 (renamed)' },
    ]);
    expect((await listed(asTeacher)).unarchived_courses).toMatchObject([
      { title: course.course, display_semester: 'Spring 2026 (renamed)' },
    ]);

    await setArchived(term, course.course, true);
    expect(await listed(asStudent)).toEqual({ unarchived_courses: [], archived_courses: [] });
    expect(await listed(asTeacher)).toMatchObject({
      unarchived_courses: [],
      archived_courses: [{ title: course.course, display_semester: 'Spring 2026 (renamed)' }],
    });
    expect((await storedEnrollment(term, course.course, student.userId))?.listingCopy).toMatchObject({
      archived: true,
      termName: 'Spring 2026 (renamed)',
      termStart: '2026-01-12',
      v: 1,
    });
  });

  it('never fills a copy from a profile changed since it was read, nor while a change is in progress', async () => {
    const teacher = await createUser('faculty');
    const student = await createUser();
    const term = await createTerm('2026-08-24', 'Fall 2026');
    const course = await createCourse(term, teacher);
    await addMember(course, student, 4, '1');
    const holder = copyHolder({ term, course: course.course, userId: student.userId });
    const readBefore = revisionOf(usersTableName(), { userId: student.userId }, await storedUser(student.userId));
    await putUser({ ...student, givenName: 'Renamed' });
    const stale = { givenName: 'Given', familyName: 'Family', email: student.email };
    await fillCopies('memberCopy', [{ checks: [sourceUnchanged(readBefore, true)], holders: [{ holder, copy: stale }] }]);
    expect((await storedEnrollment(term, course.course, student.userId))?.memberCopy).toMatchObject({ givenName: 'Renamed' });

    const current = revisionOf(usersTableName(), { userId: student.userId }, await storedUser(student.userId));
    await markProfileChanging(student.userId, true); // a change that stopped there
    await fillCopies('memberCopy', [{ checks: [sourceUnchanged(current, true)], holders: [{ holder, copy: stale }] }]);
    expect((await storedEnrollment(term, course.course, student.userId))?.memberCopy).toMatchObject({ givenName: 'Renamed' });
  });

  it('settles copies written from a profile or a term that changed before the write landed: stale ones go, fresh ones stay', async () => {
    const teacher = await createUser('faculty');
    const [student, other] = [await createUser(), await createUser()];
    const term = await createTerm('2026-08-24', 'Fall 2026');
    const course = await createCourse(term, teacher);
    await addMember(course, student, 4, '1');
    await addMember(course, other, 4, '1');
    const token = { Authorization: await tokenOf(api, teacher) };
    // An import read the profiles and the term, then a profile change and a term change ran to their end, then its write landed.
    const read = {
      member: memberCopyOf(student),
      listing: listingCopyOf({ displayName: '', archived: false }, { name: 'Fall 2026', startDate: '2026-08-24' }),
    };
    await putUser({ ...student, givenName: 'Changed' });
    await putTerm({ termId: term, name: 'Fall 2026 (renamed)', startDate: '2026-08-24', endDate: '2026-12-20' });
    const late = (userId: string, copies: EnrollmentCopies) => ({
      enrollment: {
        term,
        course: course.course,
        userId,
        group: 4 as const,
        registrationSection: '1',
        rotatingSection: null,
        gradingSections: [],
      },
      copies,
    });
    const written = [late(student.userId, read), late(other.userId, { member: memberCopyOf(other) })];
    await transactWrite(written.map(({ enrollment, copies }) => putEnrollment(enrollment, copies)));
    expect((await usersList('users', term, course.course, token))[student.userId]).toMatchObject({ first_name: 'Given' });

    expect(await settleCopies(written)).toBe(2);
    expect(await storedEnrollment(term, course.course, student.userId)).not.toHaveProperty('memberCopy');
    expect(await storedEnrollment(term, course.course, student.userId)).not.toHaveProperty('listingCopy');
    expect((await storedEnrollment(term, course.course, other.userId))?.memberCopy).toMatchObject({ givenName: other.givenName });
    expect((await usersList('users', term, course.course, token))[student.userId]).toMatchObject({ first_name: 'Changed' });
    const asStudent = { Authorization: await tokenOf(api, student) };
    expect((await api.get('/courses', asStudent)).json.data.unarchived_courses).toMatchObject([
      { display_semester: 'Fall 2026 (renamed)' },
    ]);

    // A copy whose source has a change in progress goes too: the change may have looked for its holders before the write.
    await markProfileChanging(other.userId, true);
    expect(await settleCopies([written[1]!])).toBe(1);
    expect(await storedEnrollment(term, course.course, other.userId)).not.toHaveProperty('memberCopy');
  });

  it('creates a course whose head instructor has a profile change in progress, without copying the profile', async () => {
    const teacher = await createUser('faculty');
    const term = await createTerm('2026-08-24', 'Fall 2026');
    const base = await createCourse(term, teacher);
    const token = { Authorization: await tokenOf(api, teacher) };
    const create = (title: string) =>
      api.postJson(
        '/courses',
        {
          course_semester: term,
          course_title: title,
          head_instructor: teacher.userId,
          base_course_semester: term,
          base_course_title: base.course,
        },
        token,
      );
    const [quiet, busy] = [uniqueCode('quiet'), uniqueCode('busy')];
    const first = await create(quiet);
    expect(first.json.status, first.text).toBe('success');
    expect((await storedEnrollment(term, quiet, teacher.userId))?.memberCopy).toMatchObject({ givenName: teacher.givenName });
    await markProfileChanging(teacher.userId, true);
    try {
      expect((await create(busy)).json.status).toBe('success');
    } finally {
      await markProfileChanging(teacher.userId, false);
    }
    const enrollment = await storedEnrollment(term, busy, teacher.userId);
    expect(enrollment).toMatchObject({ listingCopy: { termName: 'Fall 2026' } });
    expect(enrollment).not.toHaveProperty('memberCopy');
    expect((await usersList('graders', term, busy, token))[teacher.userId]).toMatchObject({ given_name: teacher.givenName });
  });

  it('answers from the profiles, courses and terms for items without copies (written before them, or mid-change)', async () => {
    const teacher = await createUser('faculty');
    const [old, interrupted] = [await createUser(), await createUser()];
    const term = await createTerm('2026-08-24', 'Fall 2026');
    const course = await createCourse(term, teacher);
    const enrollment = (user: { userId: string }): Enrollment => ({
      term,
      course: course.course,
      userId: user.userId,
      group: 4,
      registrationSection: '1',
      rotatingSection: null,
      gradingSections: [],
    });
    await dynamo().send(new PutCommand({ TableName: enrollmentsTableName(), Item: enrollmentItem(enrollment(old)) }));
    await addMember(course, interrupted, 4, '1');
    // A profile change stopped after writing the user, with its copy removed.
    await dynamo().send(
      new UpdateCommand({
        TableName: enrollmentsTableName(),
        Key: { courseId: courseId(term, course.course), userId: interrupted.userId },
        UpdateExpression: 'REMOVE memberCopy',
      }),
    );
    await dynamo().send(
      new UpdateCommand({
        TableName: usersTableName(),
        Key: { userId: interrupted.userId },
        UpdateExpression: 'SET givenName = :name',
        ExpressionAttributeValues: { ':name': 'Changed' },
      }),
    );
    const users = await usersList('users', term, course.course, { Authorization: await tokenOf(api, teacher) });
    expect(users[old.userId]).toMatchObject({ first_name: 'Given', email: old.email });
    expect(users[interrupted.userId]).toMatchObject({ first_name: 'Changed' });
    expect((await api.get('/courses', { Authorization: await tokenOf(api, old) })).json.data.unarchived_courses).toMatchObject([
      { title: course.course, display_name: 'Test Course', display_semester: 'Fall 2026' },
    ]);
  });
});

describe('authorization of course routes', () => {
  const allowed = {
    users: ['instructor', 'ta', 'mentor', 'groupStaff'],
    graders: ['instructor', 'ta', 'mentor', 'groupStaff'],
  } as const;
  const personas = ['anonymous', 'student', 'mentor', 'ta', 'instructor', 'otherInstructor', 'groupStaff', 'faculty', 'superuser'] as const;

  for (const [list, permitted] of Object.entries(allowed)) {
    for (const persona of personas) {
      const expected =
        persona === 'anonymous' ? 'unauthenticated' : (permitted as readonly string[]).includes(persona) ? 'allowed' : 'denied';
      it(`${list}: ${persona} is ${expected}`, async () => {
        const answer = await api.get(`/${world.course.term}/${world.course.course}/${list}`, {
          ...world.tokens[persona],
          Prefer: 'http-status',
        });
        const status = { allowed: 200, denied: 403, unauthenticated: 401 }[expected];
        expect(answer.httpStatus, answer.text).toBe(status);
        if (expected === 'denied') expect(answer.json).toEqual(FORBIDDEN);
      });
    }
  }

  const creators = {
    anonymous: 'unauthenticated',
    student: 'denied',
    mentor: 'denied',
    ta: 'denied',
    instructor: 'allowed',
    faculty: 'allowed',
    superuser: 'allowed',
  } as const;
  for (const [persona, expected] of Object.entries(creators)) {
    it(`POST /api/courses: ${persona} is ${expected}`, async () => {
      const answer = await api.postJson('/courses', {}, world.tokens[persona as keyof typeof creators]);
      const message = {
        unauthenticated: 'Unauthenticated access. Please log in.',
        denied: "You don't have access to this endpoint.",
        allowed: 'Semester, course title or head instructor not set.',
      }[expected];
      expect(answer.json.message).toBe(message);
    });
  }
});

describe('reading another course of the access group (users and graders lists)', () => {
  /** A user with a role in a new course of the world course's access group, and their token. */
  async function inGroup(group: 1 | 2 | 3 | 4, options: { archived?: boolean } = {}) {
    const [user, teacher] = await Promise.all([createUser('faculty', 'member'), createUser('faculty', 'teacher')]);
    const course = await createCourse(world.term, teacher, { accessGroup: world.course.accessGroup, ...options });
    if (group === 1) await addMember(course, user, 1);
    else await addMember(course, user, group, group === 4 ? '1' : null, group === 4 ? [] : ['1']);
    return { user, course, token: { Authorization: await tokenOf(api, user) } };
  }
  const lists = async (token: Record<string, string>) =>
    Promise.all(
      ['users', 'graders'].map(async (list) => {
        const answer = await api.get(`/${world.course.term}/${world.course.course}/${list}`, { ...token, Prefer: 'http-status' });
        return answer.json.status === 'success'
          ? 'allowed'
          : answer.httpStatus === 403 && answer.json.message === FORBIDDEN.message
            ? 'denied'
            : answer.text;
      }),
    );

  it('lets instructors and full access graders of an unarchived course of the group read them', async () => {
    for (const group of [1, 2] as const)
      expect(await lists((await inGroup(group)).token), `group ${group}`).toEqual(['allowed', 'allowed']);
  });

  it('refuses limited access graders and students of the other courses', async () => {
    for (const group of [3, 4] as const) expect(await lists((await inGroup(group)).token), `group ${group}`).toEqual(['denied', 'denied']);
  });

  it('refuses the instructors and graders of an archived course of the group, who keep their own course', async () => {
    for (const group of [1, 2] as const) {
      const { course, token } = await inGroup(group, { archived: true });
      expect(await lists(token), `group ${group}`).toEqual(['denied', 'denied']);
      const own = await api.get(`/${course.term}/${course.course}/users`, token);
      expect(own.json.status, `group ${group}: own course`).toBe('success');
    }
  });

  it('follows the course: archiving it ends its staff’s reading across the group, unarchiving gives it back', async () => {
    const { course, token } = await inGroup(1);
    expect(await lists(token)).toEqual(['allowed', 'allowed']);
    await setArchived(course.term, course.course, true);
    expect(await lists(token)).toEqual(['denied', 'denied']);
    await setArchived(course.term, course.course, false);
    expect(await lists(token)).toEqual(['allowed', 'allowed']);
  });
});

describe('POST /api/courses', () => {
  const form = (overrides: Record<string, unknown> = {}) => ({
    course_semester: world.term,
    course_title: uniqueCode('new'),
    head_instructor: world.users.instructor.userId,
    base_course_semester: world.course.term,
    base_course_title: world.course.course,
    ...overrides,
  });

  async function exists(term: string, course: string) {
    return (await getItems({ course: courseRef(term, course) })).course !== undefined;
  }

  it('creates a course from a base course and answers its summary', async () => {
    const fields = form();
    const answer = await api.postForm('/courses', fields as Record<string, string>, world.tokens.instructor);
    expect(answer.json).toEqual({
      status: 'success',
      data: {
        semester: world.term,
        title: fields.course_title,
        display_name: '',
        display_semester: 'Fall 2026',
        user_group: 1,
        registration_section: null,
      },
    });
    const graders = await api.get(`/${world.term}/${fields.course_title}/graders`, world.tokens.instructor);
    expect(graders.json.data.map((record: { user_id: string }) => record.user_id)).toEqual([world.users.instructor.userId]);
    // The new course joined the base course's access group: its staff may read the new course.
    expect((await api.get(`/${world.term}/${fields.course_title}/users`, world.tokens.ta)).json.status).toBe('success');
    expect((await api.get(`/${world.term}/${fields.course_title}/users`, world.tokens.otherInstructor)).json).toEqual(FORBIDDEN);
    const listing = await api.get('/courses', world.tokens.instructor);
    expect(listing.json.data.unarchived_courses.map((course: { title: string }) => course.title)).toContain(fields.course_title);
  });

  it("accepts the web form's single base_course field and multipart bodies", async () => {
    const body = new FormData();
    const fields = form({ base_course: `${world.course.term}|${world.course.course}` });
    delete (fields as Record<string, unknown>).base_course_semester;
    delete (fields as Record<string, unknown>).base_course_title;
    for (const [name, value] of Object.entries(fields)) body.append(name, String(value));
    const answer = await api.call('POST', '/courses', { headers: world.tokens.instructor, body });
    expect(answer.json.status, answer.text).toBe('success');
  });

  it('lets superusers create courses for anyone, and faculty only for themselves', async () => {
    expect((await api.postJson('/courses', form(), world.tokens.superuser)).json.status).toBe('success');
    const forOther = await api.postJson('/courses', form({ head_instructor: world.users.instructor.userId }), world.tokens.faculty);
    expect(forOther.json).toEqual({ status: 'fail', message: 'You can only create course for yourself.' });
  });

  it('requires the head instructor to be staff of the base course or its access group', async () => {
    const ownCourse = await api.postJson('/courses', form({ head_instructor: world.users.faculty.userId }), world.tokens.faculty);
    expect(ownCourse.json).toEqual({
      status: 'fail',
      message:
        'The instructor is not in the correct group. Only an instructor of the base course, or of an unarchived course of its access group, may base a course on it: ask one of them to add the head instructor as an instructor of the base course, or a superuser to create the course without a base course.',
    });
    const viaGroup = await api.postJson(
      '/courses',
      form({ head_instructor: world.users.siblingInstructor.userId }),
      world.tokens.superuser,
    );
    expect(viaGroup.json.status, viaGroup.text).toBe('success');
  });

  it('names as head instructor only an instructor of the base course, or of an unarchived course of its group', async () => {
    const notInGroup = {
      status: 'fail',
      message:
        'The instructor is not in the correct group. Only an instructor of the base course, or of an unarchived course of its access group, may base a course on it: ask one of them to add the head instructor as an instructor of the base course, or a superuser to create the course without a base course.',
    };
    const [fullGrader, archivedTeacher, pastTeacher] = await Promise.all([
      createUser('faculty', 'grader'),
      createUser('faculty', 'archived'),
      createUser('faculty', 'past'),
    ]);
    // A full access grader of the base course would become an instructor of its group.
    await addMember(world.course, fullGrader, 2, null, ['1']);
    const asGrader = await api.postJson('/courses', form({ head_instructor: fullGrader.userId }), world.tokens.superuser);
    expect(asGrader.json).toEqual(notInGroup);
    // An instructor of an archived course of the group has left the group.
    await createCourse(world.term, archivedTeacher, { accessGroup: world.course.accessGroup, archived: true });
    const fromArchived = await api.postJson('/courses', form({ head_instructor: archivedTeacher.userId }), world.tokens.superuser);
    expect(fromArchived.json).toEqual(notInGroup);
    // The instructor of an archived base course starts its next term from it.
    const past = await createCourse(world.term, pastTeacher, { accessGroup: world.course.accessGroup, archived: true });
    const nextTerm = await api.postJson(
      '/courses',
      form({ head_instructor: pastTeacher.userId, base_course_semester: past.term, base_course_title: past.course }),
      { Authorization: await tokenOf(api, pastTeacher) },
    );
    expect(nextTerm.json.status, nextTerm.text).toBe('success');
  });

  it('answers one success and one "already exists" to two concurrent creations', async () => {
    const fields = form();
    const answers = await Promise.all([
      api.postJson('/courses', fields, world.tokens.instructor),
      api.postJson('/courses', fields, world.tokens.instructor),
    ]);
    expect(answers.map((answer) => answer.json.status).sort()).toEqual(['fail', 'success']);
    expect(answers.find((answer) => answer.json.status === 'fail')!.json.message).toBe('Course with that semester/title already exists.');
    const again = await api.postJson('/courses', fields, { ...world.tokens.instructor, Prefer: 'http-status' });
    expect(again.httpStatus).toBe(409);
  });

  const refusals: [string, Record<string, unknown>, string][] = [
    ['no semester', { course_semester: undefined }, 'Semester, course title or head instructor not set.'],
    ['an empty title', { course_title: '' }, 'Semester, course title or head instructor not set.'],
    ['no head instructor', { head_instructor: undefined }, 'Semester, course title or head instructor not set.'],
    ['an upper-case title', { course_title: 'CSCI1100' }, 'The course title must be 1 to 64 lowercase letters, digits or underscores.'],
    ['../ in the title', { course_title: '../etc' }, 'The course title must be 1 to 64 lowercase letters, digits or underscores.'],
    ['# in the title', { course_title: 'a#b' }, 'The course title must be 1 to 64 lowercase letters, digits or underscores.'],
    ['a very long title', { course_title: 'x'.repeat(65) }, 'The course title must be 1 to 64 lowercase letters, digits or underscores.'],
    ['an oversized field', { course_title: 'x'.repeat(5000) }, 'The field course_title must be at most 256 characters long.'],
    ['a semester with a slash', { course_semester: 'f26/x' }, 'The semester must be 1 to 64 lowercase letters, digits or underscores.'],
    ['a number for the title', { course_title: 123 }, 'The field course_title must be a string.'],
    ['an array for the instructor', { head_instructor: ['a'] }, 'The field head_instructor must be a string.'],
    ['half a base course', { base_course_title: undefined }, 'Invalid base course.'],
    [
      'copy_gradeables without a base course',
      { base_course_semester: undefined, base_course_title: undefined, copy_gradeables: true },
      'Invalid base course.',
    ],
    [
      'a malformed access group',
      { access_group: 'a group' },
      'An access group name is 1 to 64 letters, digits, dots, underscores or hyphens.',
    ],
    ['an unknown base course', { base_course_title: 'no_such_course' }, 'Invalid base course.'],
    ['a malformed base_course', { base_course: 'a|b|c' }, 'Invalid base course.'],
    ['an unknown head instructor', { head_instructor: 'nobody-known' }, "Head instructor doesn't exist."],
    ['an unknown semester', { course_semester: 'zz99' }, 'The semester zz99 does not exist.'],
    ['an existing course', { course_title: 'EXISTING' }, 'Course with that semester/title already exists.'],
    ['a non-boolean copy_gradeables', { copy_gradeables: 'maybe' }, 'The field copy_gradeables must be true or false.'],
  ];
  for (const [what, overrides, message] of refusals) {
    it(`refuses ${what} and writes nothing`, async () => {
      const fields = form(overrides.course_title === 'EXISTING' ? { course_title: world.course.course } : overrides);
      const answer = await api.postJson('/courses', fields, world.tokens.superuser);
      expect(answer.json).toEqual({ status: 'fail', message });
      const title = fields.course_title;
      if (typeof title === 'string' && title.length <= 64 && /^[a-z0-9_]+$/.test(title) && title !== world.course.course) {
        expect(await exists(String(fields.course_semester ?? world.term), title)).toBe(false);
      }
      if (typeof fields.head_instructor === 'string' && typeof title === 'string' && /^[a-z0-9_]{1,64}$/.test(title)) {
        const { enrollment } = await getItems({ enrollment: enrollmentRef(world.term, title, fields.head_instructor) });
        if (title !== world.course.course) expect(enrollment).toBeUndefined();
      }
    });
  }
});

describe('courses of their own, and moving a course to another access group', () => {
  const NO_BASE =
    'Only a superuser can create a course without a base course: name a base course you teach, or ask a superuser to create it.';
  const SUPERUSERS_ONLY = "Only a superuser can choose or change a course's access group.";
  const fresh = (overrides: Record<string, unknown> = {}) => ({
    course_semester: world.term,
    course_title: uniqueCode('own'),
    head_instructor: world.users.faculty.userId,
    ...overrides,
  });
  const roster = async (course: string, token: Record<string, string>) =>
    (await api.get(`/${world.term}/${course}/users`, token)).json.status === 'success' ? 'read' : 'refused';
  const settings = (course: string) => `/courses/${world.term}/${course}/config`;

  it('lets a superuser create a course without a base course, in an access group of its own', async () => {
    const fields = fresh();
    const created = await api.postJson('/courses', fields, world.tokens.superuser);
    expect(created.json.status, created.text).toBe('success');
    const config = await api.get(settings(fields.course_title), world.tokens.faculty);
    expect(config.json.data.config).toMatchObject({ access_group: `${world.term}.${fields.course_title}`, timezone: 'UTC' });
    // Its own instructor reads its roster; the staff of other courses do not.
    expect(await roster(fields.course_title, world.tokens.faculty)).toBe('read');
    expect(await roster(fields.course_title, world.tokens.ta)).toBe('refused');
  });

  it('lets a superuser name the access group, with or without a base course', async () => {
    const named = fresh({ access_group: world.course.accessGroup });
    expect((await api.postJson('/courses', named, world.tokens.superuser)).json.status).toBe('success');
    expect(await roster(named.course_title, world.tokens.ta)).toBe('read');
    // Based on the world's course but in a group of its own: the base course's staff read nothing of it.
    const apart = fresh({ base_course_semester: world.term, base_course_title: world.course.course, access_group: uniqueCode('apart') });
    expect((await api.postJson('/courses', apart, world.tokens.superuser)).json.status).toBe('success');
    expect(await roster(apart.course_title, world.tokens.ta)).toBe('refused');
  });

  it('tells faculty what to ask for: a base course they teach, or a superuser', async () => {
    expect((await api.postJson('/courses', fresh(), world.tokens.faculty)).json).toEqual({ status: 'fail', message: NO_BASE });
    const naming = await api.postJson(
      '/courses',
      fresh({
        head_instructor: world.users.instructor.userId,
        base_course_semester: world.term,
        base_course_title: world.course.course,
        access_group: 'mine',
      }),
      world.tokens.instructor,
    );
    expect(naming.json).toEqual({ status: 'fail', message: SUPERUSERS_ONLY });
  });

  it('moves a course to another access group over HTTP: the old group’s staff no longer read it, with an audit entry', async () => {
    const fields = fresh({
      base_course_semester: world.term,
      base_course_title: world.course.course,
      head_instructor: world.users.instructor.userId,
    });
    expect((await api.postJson('/courses', fields, world.tokens.instructor)).json.status).toBe('success');
    // A TA of another course of the group (the world's course) reads the new course's roster …
    expect(await roster(fields.course_title, world.tokens.ta)).toBe('read');
    // … until a superuser moves it; its instructor may not.
    const byInstructor = await api.postJson(
      settings(fields.course_title),
      { name: 'access_group', entry: 'elsewhere' },
      world.tokens.instructor,
    );
    expect(byInstructor.json).toEqual({ status: 'fail', message: SUPERUSERS_ONLY });
    const badName = await api.postJson(settings(fields.course_title), { name: 'access_group', entry: '../x' }, world.tokens.superuser);
    expect(badName.json.message).toBe('An access group name is 1 to 64 letters, digits, dots, underscores or hyphens.');
    const group = uniqueCode('moved');
    const moved = await api.postJson(settings(fields.course_title), { name: 'access_group', entry: group }, world.tokens.superuser);
    expect(moved.json.data.config.access_group, moved.text).toBe(group);
    expect(await roster(fields.course_title, world.tokens.ta)).toBe('refused');
    expect(await roster(fields.course_title, world.tokens.instructor)).toBe('read');
    const trail = await api.get(`/${world.term}/${fields.course_title}/audit`, world.tokens.instructor);
    expect(trail.json.data[0]).toMatchObject({
      actor: world.users.superuser.userId,
      action: 'course.setting-changed',
      target: 'access_group',
      before: { access_group: world.course.accessGroup },
      after: { access_group: group },
    });
  });

  it('records each of many moves at once as it held: the trail chains from one group to the next, ending at the course’s group', async () => {
    const fields = fresh();
    expect((await api.postJson('/courses', fields, world.tokens.superuser)).json.status).toBe('success');
    const rounds = 8;
    for (let round = 0; round < rounds; round++) {
      const targets = [uniqueCode('race'), uniqueCode('race'), uniqueCode('race')];
      const answers = await Promise.all(
        targets.map((entry) => api.postJson(settings(fields.course_title), { name: 'access_group', entry }, world.tokens.superuser)),
      );
      for (const answer of answers) expect(answer.json.status, answer.text).toBe('success');
      const { course } = await getItems({ course: courseRef(world.term, fields.course_title) });
      expect(targets).toContain(course!.accessGroup);
      const { entries } = await auditEntries({ courseId: courseId(world.term, fields.course_title) }, 100, undefined);
      const moves = entries.filter((entry) => entry.target === 'access_group').reverse();
      expect(moves.at(-1)!.after).toEqual({ access_group: course!.accessGroup });
      for (let index = 1; index < moves.length; index++) expect(moves[index]!.before).toEqual(moves[index - 1]!.after);
      // Its instructor reads it in whichever group it ended in.
      expect(await roster(fields.course_title, world.tokens.faculty)).toBe('read');
    }
  }, 120_000);
});

describe('POST /api/terms', () => {
  it('lets a superuser create a term once', async () => {
    const termId = uniqueCode('term');
    const fields = { term_id: termId, term_name: 'Summer 2027', start_date: '2027-05-15', end_date: '2027-08-01' };
    expect((await api.postJson('/terms', fields, world.tokens.superuser)).json).toEqual({ status: 'success', data: fields });
    const again = await api.postJson('/terms', fields, { ...world.tokens.superuser, Prefer: 'http-status' });
    expect(again.httpStatus).toBe(409);
    expect(again.json.message).toBe('Term already exists.');
  });

  it('refuses bad terms and non-superusers', async () => {
    const good = { term_id: uniqueCode('term'), term_name: 'X', start_date: '2027-05-15', end_date: '2027-08-01' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, term_id: 'F27' }, 'The term id must be 1 to 64 lowercase letters, digits or underscores.'],
      // Its courses' audit trail would be /api/users/<course>/audit, which is a user's trail.
      [{ ...good, term_id: 'users' }, 'The term id users is reserved: the API has paths of its own that begin with it.'],
      [{ ...good, start_date: '2027-02-30' }, 'Start and end dates must be dates of the form YYYY-MM-DD.'],
      [{ ...good, start_date: '2027-09-01' }, 'The start date must not be after the end date.'],
      [{ ...good, term_name: undefined }, 'Term id, term name, start date and end date are all required.'],
    ];
    for (const [body, message] of cases) {
      expect((await api.postJson('/terms', body, world.tokens.superuser)).json).toEqual({ status: 'fail', message });
    }
    expect((await api.postJson('/terms', good, world.tokens.faculty)).json).toEqual(FORBIDDEN);
  });
});
