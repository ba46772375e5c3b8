import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { courseRef } from '#shared/data/courses.ts';
import { getItems } from '#shared/data/items.ts';
import { addMember, createCourse, createTerm, tokenOf } from '../support/courses.ts';
import { runAdminCommand, usage, UsageError } from '#infra/admin/commands.ts';
import { getUser } from '#shared/data/users.ts';
import { startTestApi } from '../support/http.ts';
import { createUser } from '../support/users.ts';

async function admin(...argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  await runAdminCommand(argv, (line) => lines.push(line));
  return lines;
}

describe('admin command line', () => {
  it('prints its usage', async () => {
    expect(await admin('--help')).toEqual([usage]);
    expect(await admin()).toEqual([usage]);
  });

  it('adds a user who can then log in', async () => {
    const output = await admin(
      'add-user',
      'newfaculty',
      '--given-name',
      'Nora',
      '--family-name',
      'New',
      '--email',
      'nora@example.edu',
      '--level',
      'faculty',
      '--password',
      's3cret-pass',
    );
    expect(output).toEqual(['Added newfaculty (faculty).']);
    expect(await getUser('newfaculty')).toEqual({
      userId: 'newfaculty',
      givenName: 'Nora',
      familyName: 'New',
      email: 'nora@example.edu',
      accessLevel: 'faculty',
    });
    const api = await startTestApi();
    try {
      const login = await api.postJson('/token', { user_id: 'newfaculty', password: 's3cret-pass' });
      expect(login.json.status).toBe('success');
    } finally {
      await api.close();
    }
  });

  it('generates a password when none is given, and setting one ends the session', async () => {
    const user = await createUser();
    const api = await startTestApi();
    try {
      const token = (await api.postJson('/token', { user_id: user.userId, password: user.password })).json.data.token;
      const output = await admin('set-password', user.userId);
      const generated = /^Generated password for .+: (\S+)$/.exec(output[0]!)?.[1];
      expect(generated).toBeDefined();
      expect((await api.get('/me', { Authorization: token })).json.status).toBe('fail');
      expect((await api.postJson('/token', { user_id: user.userId, password: generated })).json.status).toBe('success');
    } finally {
      await api.close();
    }
  });

  it('sets access levels and lists users', async () => {
    const user = await createUser();
    await admin('set-level', user.userId, 'superuser');
    expect((await getUser(user.userId))?.accessLevel).toBe('superuser');
    const listing = await admin('list-users');
    expect(listing).toContain(`${user.userId}\tsuperuser\tGiven Family\t${user.email}`);
    // The change is in the user's audit trail, made by the command line, which no account can pass for.
    const api = await startTestApi();
    try {
      const root = await createUser('superuser');
      const su = { Authorization: await tokenOf(api, root) };
      const trail = await api.get(`/users/${user.userId}/audit`, su);
      expect(trail.json.data).toEqual([
        expect.objectContaining({
          actor: '(command line)',
          action: 'user.changed',
          before: { level: 'user' },
          after: { level: 'superuser' },
        }),
      ]);
      const named = await api.postJson(
        '/users',
        { user_id: '(command line)', first_name: 'Op', last_name: 'Erator', email: 'op@example.edu' },
        su,
      );
      expect(named.json).toEqual({ status: 'fail', message: 'Invalid user id "(command line)".' });
    } finally {
      await api.close();
    }
  });

  it('disables a user, ending their token and refusing their logins, and enables them again', async () => {
    const user = await createUser();
    const api = await startTestApi();
    try {
      const token = await tokenOf(api, user);
      expect(await admin('disable-user', user.userId)).toEqual([`${user.userId} is now disabled; their token no longer works.`]);
      expect((await api.get('/me', { Authorization: token })).json.status).toBe('fail');
      expect((await api.postJson('/token', { user_id: user.userId, password: user.password })).json.message).toBe(
        'This account is disabled. Ask an administrator to enable it again.',
      );
      expect(await admin('list-users')).toContain(`${user.userId}\tuser\tGiven Family\t${user.email}\tdisabled`);
      expect(await admin('enable-user', user.userId)).toEqual([`${user.userId} is now enabled.`]);
      expect((await api.postJson('/token', { user_id: user.userId, password: user.password })).json.status).toBe('success');
      await expect(admin('disable-user', 'nobody-at-all')).rejects.toThrow(UsageError);
    } finally {
      await api.close();
    }
  });

  it('refuses bad input with a usage error and changes nothing', async () => {
    const user = await createUser();
    await expect(admin('set-level', user.userId, 'king')).rejects.toThrow(UsageError);
    await expect(admin('add-user', '../x', '--given-name', 'a', '--family-name', 'b', '--email', 'c')).rejects.toThrow(UsageError);
    await expect(admin('add-user', user.userId, '--given-name', 'a', '--family-name', 'b', '--email', 'c@d.e')).rejects.toThrow(
      /already exists/,
    );
    await expect(admin('add-user', 'fresh-user', '--given-name', 'a', '--family-name', 'b', '--email', 'c')).rejects.toThrow(
      'Invalid e-mail address.',
    );
    await expect(
      admin('add-user', 'fresh-user', '--given-name', 'a', '--family-name', 'b', '--email', 'c@d.e', '--password', 'password123'),
    ).rejects.toThrow('The password is one of the most common passwords; choose another.');
    expect(await getUser('fresh-user')).toBeUndefined();
    await expect(admin('set-password', 'nobody-at-all')).rejects.toThrow(/No user/);
    await expect(admin('frobnicate')).rejects.toThrow(/Unknown command/);
    expect((await getUser(user.userId))?.accessLevel).toBe('user');
  });
});

describe('admin command line: terms, courses and class lists', () => {
  it('adds a term, creates, archives and unarchives a course', async () => {
    const instructor = await createUser('faculty');
    expect(await admin('add-term', 'w27', '--name', 'Winter 2027', '--start', '2027-01-04', '--end', '2027-03-20')).toEqual([
      'Term w27 (Winter 2027, 2027-01-04 to 2027-03-20) saved.',
    ]);
    expect(await admin('create-course', 'w27', 'intro', '--instructor', instructor.userId, '--time-zone', 'Europe/Berlin')).toEqual([
      `Created w27/intro with ${instructor.userId} as instructor, in access group w27.intro.`,
    ]);
    await expect(admin('create-course', 'w27', 'intro', '--instructor', instructor.userId)).rejects.toThrow(/already exists/);
    await expect(admin('create-course', 'w27', 'other', '--instructor', instructor.userId, '--time-zone', 'Mars/Base')).rejects.toThrow(
      /time zone/,
    );
    await expect(admin('create-course', 'x99', 'other', '--instructor', instructor.userId)).rejects.toThrow(/No term x99/);
    expect(await admin('archive-course', 'w27', 'intro')).toEqual(['w27/intro is archived.']);
    expect((await getItems({ course: courseRef('w27', 'intro') })).course).toMatchObject({ archived: true, timeZone: 'Europe/Berlin' });
    expect(await admin('unarchive-course', 'w27', 'intro')).toEqual(['w27/intro is unarchived.']);
    await expect(admin('archive-course', 'w27', 'nothing')).rejects.toThrow(/No course/);
  });

  it('imports a class list once: a second run changes nothing', async () => {
    const instructor = await createUser('faculty');
    const term = await createTerm('2027-01-04');
    const course = await createCourse(term, instructor);
    const existing = await createUser();
    const dir = await mkdtemp(join(tmpdir(), 'class-list-'));
    const file = join(dir, 'list.csv');
    await writeFile(
      file,
      [
        'user_id,first_name,last_name,email,registration_section,group',
        `new_${course.course},Nell,New,nell@example.edu,1,student`,
        `${existing.userId},Given,Renamed,${existing.email},2,4`,
        'bad id,X,Y,x@y.z,1,4',
      ].join('\n'),
    );
    const first = await admin('enroll', term, course.course, file);
    expect(first[0]).toMatch(new RegExp(`^New user new_${course.course}: password \\S{16}$`));
    expect(first.slice(1)).toEqual([
      `Imported 2 rows into ${term}/${course.course}: 1 users created, 1 updated, 2 enrollments added or changed, 0 unchanged, 1 rejected.`,
      'Rejected line 4: Invalid user id "bad id".',
    ]);
    expect((await getUser(existing.userId))?.familyName).toBe('Renamed');
    const password = first[0]!.split(' ').at(-1)!;

    const second = await admin('enroll', term, course.course, file);
    expect(second).toEqual([
      `Imported 2 rows into ${term}/${course.course}: 0 users created, 0 updated, 0 enrollments added or changed, 2 unchanged, 1 rejected.`,
      'Rejected line 4: Invalid user id "bad id".',
    ]);

    const api = await startTestApi();
    try {
      const login = await api.postJson('/token', { user_id: `new_${course.course}`, password });
      expect(login.json.status).toBe('success');
      const courses = await api.get('/courses', { Authorization: login.json.data.token });
      expect(courses.json.data.unarchived_courses).toMatchObject([{ title: course.course, user_group: 4, registration_section: '1' }]);
    } finally {
      await api.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("moves a course to an access group of its own, taking its staff's reading rights with it", async () => {
    const api = await startTestApi();
    try {
      const instructor = await createUser('faculty');
      const siblingTa = await createUser();
      const term = await createTerm('2027-01-04');
      const course = await createCourse(term, instructor);
      const sibling = await createCourse(term, await createUser('faculty'), { accessGroup: course.accessGroup });
      await addMember(sibling, siblingTa, 2);
      const token = { Authorization: await tokenOf(api, siblingTa) };
      expect((await api.get(`/${term}/${course.course}/users`, token)).json.status).toBe('success');

      expect(await admin('set-access-group', term, course.course, `${course.course}_own`)).toEqual([
        `${term}/${course.course} is in access group ${course.course}_own.`,
      ]);
      expect((await api.get(`/${term}/${course.course}/users`, token)).json.message).toBe("You don't have access to this endpoint.");
      const instructorToken = { Authorization: await tokenOf(api, instructor) };
      expect((await api.get(`/${term}/${course.course}/users`, instructorToken)).json.status).toBe('success');
    } finally {
      await api.close();
    }
  });
});
