import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditEntry, auditScopeKey, type AuditScope } from '#shared/data/audit.ts';
import { dynamo } from '#shared/data/client.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { getUser } from '#shared/data/users.ts';
import { putTerm } from '#shared/data/terms.ts';
import { courseId } from '#shared/courses/course.ts';
import { addMember, createCourse, createTerm, tokenOf, uniqueCode } from '../support/courses.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createUser, type TestUser } from '../support/users.ts';

const UNAUTHENTICATED = 'Unauthenticated access. Please log in.';
const DENIED = "You don't have access to this endpoint.";
const STRONG = 'correct horse battery staple';

let api: TestApi;
let superuser: TestUser;
let su: Record<string, string>;
beforeAll(async () => {
  api = await startTestApi();
  superuser = await createUser('superuser', 'root');
  su = { Authorization: await tokenOf(api, superuser), Prefer: 'http-status' };
});
afterAll(() => api.close());
afterEach(() => vi.unstubAllEnvs());

const as = (token: string) => ({ Authorization: token, Prefer: 'http-status' });
const patch = (path: string, body: unknown, headers: Record<string, string>) =>
  api.call('PATCH', path, { headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
const newId = (prefix = 'new') => `${prefix}-${randomUUID().slice(0, 8)}`;

/** Every entry of a trail as stored, oldest first. */
async function storedTrail(scope: AuditScope) {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(tables.audit),
      KeyConditionExpression: '#scope = :scope',
      ExpressionAttributeNames: { '#scope': 'scope' },
      ExpressionAttributeValues: { ':scope': auditScopeKey(scope) },
      ConsistentRead: true,
    }),
  );
  return Items;
}

describe('POST /api/users', () => {
  it('creates a user with a generated password shown once, who can then log in; the trail records who created it', async () => {
    const userId = newId();
    const created = await api.postJson(
      '/users',
      { user_id: userId, first_name: ' Nora ', last_name: 'New', email: 'nora@example.edu', level: 'faculty' },
      su,
    );
    expect(created.json).toEqual({
      status: 'success',
      data: {
        user_id: userId,
        first_name: 'Nora',
        last_name: 'New',
        email: 'nora@example.edu',
        level: 'faculty',
        disabled: false,
        password: expect.any(String),
      },
    });
    const password = created.json.data.password as string;
    expect(password.length).toBeGreaterThanOrEqual(16);
    const login = await api.postJson('/token', { user_id: userId, password });
    expect(login.json.status, login.text).toBe('success');

    const trail = await storedTrail({ userId });
    expect(trail).toEqual([
      expect.objectContaining({
        actor: superuser.userId,
        action: 'user.created',
        target: userId,
        after: { first_name: 'Nora', last_name: 'New', email: 'nora@example.edu', level: 'faculty' },
      }),
    ]);
    expect(JSON.stringify(trail)).not.toContain(password);
    expect(JSON.stringify(trail)).not.toContain('scrypt');
  });

  it('takes a chosen password (not shown back), level user by default; an existing user id is a fail that changes nothing', async () => {
    const userId = newId();
    const created = await api.postJson(
      '/users',
      { user_id: userId, first_name: 'A', last_name: 'B', email: 'a@b.c', password: STRONG },
      su,
    );
    expect(created.json.data).toMatchObject({ level: 'user', password: null });
    expect((await api.postJson('/token', { user_id: userId, password: STRONG })).json.status).toBe('success');

    const again = await api.postJson('/users', { user_id: userId, first_name: 'X', last_name: 'Y', email: 'x@y.z' }, su);
    expect([again.httpStatus, again.json]).toEqual([409, { status: 'fail', message: `User ${userId} already exists.` }]);
    expect((await getUser(userId))?.givenName).toBe('A');
    expect((await api.postJson('/token', { user_id: userId, password: STRONG })).json.status).toBe('success');
    expect(await storedTrail({ userId })).toHaveLength(1);
  });

  it('refuses bad fields and weak passwords, saying why, and creates nothing', async () => {
    const userId = newId();
    const base = { user_id: userId, first_name: 'A', last_name: 'B', email: 'a@b.c' };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...base, email: undefined }, 400, 'Give user_id, first_name, last_name and email.'],
      [{ ...base, user_id: '../etc' }, 400, 'Invalid user id "../etc".'],
      [{ ...base, first_name: '  ' }, 400, 'The field first_name cannot be blank.'],
      [{ ...base, email: 'not an address' }, 400, 'Invalid e-mail address.'],
      [{ ...base, level: 'king' }, 400, 'The level must be one of user, faculty, superuser.'],
      [{ ...base, first_name: ['A'] }, 400, 'The field first_name must be a string.'],
      [{ ...base, password: 'short' }, 400, 'The password must be at least 10 characters long.'],
      [{ ...base, password: userId.toUpperCase() }, 400, 'The password cannot be the user id.'],
      [{ ...base, password: 'Password123' }, 400, 'The password is one of the most common passwords; choose another.'],
    ];
    for (const [body, status, message] of cases) {
      const answer = await api.postJson('/users', body, su);
      expect([answer.httpStatus, answer.json], JSON.stringify(body)).toEqual([status, { status: 'fail', message }]);
    }
    expect(await getUser(userId)).toBeUndefined();
    expect(await storedTrail({ userId })).toEqual([]);
  });

  it('is for superusers only', async () => {
    const faculty = await createUser('faculty');
    const answer = await api.postJson(
      '/users',
      { user_id: newId(), first_name: 'A', last_name: 'B', email: 'a@b.c' },
      as(await tokenOf(api, faculty)),
    );
    expect([answer.httpStatus, answer.json.message]).toEqual([403, DENIED]);
  });
});

describe('names a spreadsheet would run as a formula', () => {
  it('are refused wherever an account is written: created, changed by a superuser, changed by the user; nothing changes', async () => {
    const user = await createUser();
    const token = as(await tokenOf(api, user));
    const formula = (first: string) => `The field first_name starts with "${first}", which spreadsheets run as a formula.`;
    for (const name of ['=HYPERLINK("http://evil.example","x")', '+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1']) {
      const first = name.trim().charAt(0);
      const created = await api.postJson('/users', { user_id: newId(), first_name: name, last_name: 'L', email: 'x@example.edu' }, su);
      expect([created.httpStatus, created.json.message], JSON.stringify(name)).toEqual([400, formula(first)]);
      const own = await patch(`/users/${user.userId}`, { first_name: name }, token);
      expect([own.httpStatus, own.json.message], JSON.stringify(name)).toEqual([400, formula(first)]);
      const bySuperuser = await patch(`/users/${user.userId}`, { first_name: name }, su);
      expect([bySuperuser.httpStatus, bySuperuser.json.message], JSON.stringify(name)).toEqual([400, formula(first)]);
    }
    const email = await patch(`/users/${user.userId}`, { email: '=1+1@example.edu' }, su);
    expect(email.json.message).toBe('The field email starts with "=", which spreadsheets run as a formula.');
    expect(await getUser(user.userId)).toMatchObject({ givenName: 'Given', familyName: 'Family', email: user.email });
    expect(await storedTrail({ userId: user.userId })).toEqual([]);
  });
});

describe('GET /api/users', () => {
  it('lists every user by user id, whole or paged with a Link to the next page', async () => {
    const prefix = `list${randomUUID().slice(0, 6)}`;
    for (const letter of ['c', 'a', 'b']) await createUser('user', `${prefix}-${letter}`);
    const whole = await api.get('/users', su);
    expect(whole.json.status).toBe('success');
    const ids = (whole.json.data as { user_id: string }[]).map((user) => user.user_id);
    expect(ids).toEqual([...ids].sort((a, b) => a.localeCompare(b)));
    const mine = (whole.json.data as { user_id: string }[]).filter((user) => user.user_id.startsWith(prefix));
    expect(mine.map((user) => user.user_id.split('-')[1])).toEqual(['a', 'b', 'c']);
    expect(Object.keys(mine[0]!)).toEqual(['user_id', 'first_name', 'last_name', 'email', 'level', 'disabled']);

    const seen: string[] = [];
    let next: string | undefined = '/users?page_size=2';
    while (next) {
      const page = await api.get(next.replace(/^\/api/, ''), su);
      expect(page.json.status, page.text).toBe('success');
      seen.push(...(page.json.data as { user_id: string }[]).map((user) => user.user_id));
      next = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    }
    expect(seen).toEqual(ids);
    const bad = await api.get('/users?cursor=nonsense', su);
    expect([bad.httpStatus, bad.json.message]).toEqual([400, 'The cursor is not one this users list gave out.']);
  });
});

describe('GET and PATCH /api/users/{user_id}', () => {
  it('shows users their own account, superusers any; others are denied whether or not the user exists', async () => {
    const [user, other] = await Promise.all([createUser(), createUser()]);
    const token = as(await tokenOf(api, user));
    expect((await api.get(`/users/${user.userId}`, token)).json.data).toEqual({
      user_id: user.userId,
      first_name: 'Given',
      last_name: 'Family',
      email: user.email,
      level: 'user',
      disabled: false,
    });
    expect((await api.get(`/users/${other.userId}`, token)).json.message).toBe(DENIED);
    expect((await api.get('/users/nobody-at-all', token)).json.message).toBe(DENIED);
    expect((await api.get(`/users/${other.userId}`, su)).json.data.user_id).toBe(other.userId);
    const missing = await api.get('/users/nobody-at-all', su);
    expect([missing.httpStatus, missing.json.message]).toEqual([404, 'No user nobody-at-all.']);
    expect((await api.get(`/users/${user.userId}`, { Prefer: 'http-status' })).json.message).toBe(UNAUTHENTICATED);
  });

  it('lets users change their own names, and the course lists follow; anything else from them is a fail that changes nothing', async () => {
    const [instructor, student] = await Promise.all([createUser('faculty'), createUser()]);
    const course = await createCourse(await createTerm('2026-08-24'), instructor);
    await addMember(course, student, 4, '1');
    const token = as(await tokenOf(api, student));
    const path = `/users/${student.userId}`;

    const changed = await patch(path, { first_name: 'Sam', last_name: 'Smith' }, token);
    expect(changed.json.data).toMatchObject({ first_name: 'Sam', last_name: 'Smith', email: student.email, level: 'user' });
    expect((await api.get('/me', token)).json.data).toMatchObject({ user_given_name: 'Sam', user_family_name: 'Smith' });
    const users = await api.get(`/${course.term}/${course.course}/users`, as(await tokenOf(api, instructor)));
    expect(users.json.data).toContainEqual(expect.objectContaining({ user_id: student.userId, first_name: 'Sam', last_name: 'Smith' }));

    const refusals: [Record<string, unknown>, number, string][] = [
      [{ email: 'me@evil.example' }, 403, 'You may change only your own first_name and last_name; email is changed by a superuser.'],
      [
        { first_name: 'Ok', level: 'superuser' },
        403,
        'You may change only your own first_name and last_name; level is changed by a superuser.',
      ],
      [{ first_name: 'Ok', password: 'x' }, 400, 'The field password cannot be changed here.'],
      [{ user_id: 'someone-else' }, 400, 'The field user_id cannot be changed here.'],
      [{ accessLevel: 'superuser' }, 400, 'The field accessLevel cannot be changed here.'],
      [{ first_name: 7 }, 400, 'The field first_name must be a string.'],
      [{ first_name: '' }, 400, 'The field first_name cannot be blank.'],
      [{ first_name: 'x'.repeat(101) }, 400, 'The field first_name must be at most 100 characters long.'],
      [{}, 400, 'Give at least one of first_name, last_name, email, level, disabled.'],
    ];
    for (const [body, status, message] of refusals) {
      const answer = await patch(path, body, token);
      expect([answer.httpStatus, answer.json], JSON.stringify(body)).toEqual([status, { status: 'fail', message }]);
    }
    expect(await getUser(student.userId)).toEqual({ ...student, password: undefined, givenName: 'Sam', familyName: 'Smith' });
    const other = await createUser();
    expect((await patch(`/users/${other.userId}`, { first_name: 'Hacked' }, token)).json.message).toBe(DENIED);
    expect((await getUser(other.userId))?.givenName).toBe('Given');

    const trail = await storedTrail({ userId: student.userId });
    expect(trail).toEqual([
      expect.objectContaining({
        actor: student.userId,
        action: 'user.changed',
        target: student.userId,
        before: { first_name: 'Given', last_name: 'Family' },
        after: { first_name: 'Sam', last_name: 'Smith' },
      }),
    ]);
  });

  it('lets superusers change names, e-mail and level, but not their own level; a change to nothing writes nothing', async () => {
    const user = await createUser();
    const changed = await patch(`/users/${user.userId}`, { email: 'new@example.edu', level: 'faculty' }, su);
    expect(changed.json.data).toMatchObject({ email: 'new@example.edu', level: 'faculty' });
    expect((await getUser(user.userId))?.accessLevel).toBe('faculty');
    expect((await patch(`/users/${user.userId}`, { level: 'faculty' }, su)).json.status).toBe('success');
    const trail = await storedTrail({ userId: user.userId });
    expect(trail.map(({ actor, action, before, after }) => ({ actor, action, before, after }))).toEqual([
      {
        actor: superuser.userId,
        action: 'user.changed',
        before: { email: user.email, level: 'user' },
        after: { email: 'new@example.edu', level: 'faculty' },
      },
    ]);
    const own = await patch(`/users/${superuser.userId}`, { level: 'user' }, su);
    expect([own.httpStatus, own.json.message]).toEqual([403, 'Superusers cannot change their own level; another superuser can.']);
    expect((await getUser(superuser.userId))?.accessLevel).toBe('superuser');
    expect((await patch('/users/nobody-at-all', { first_name: 'X' }, su)).json.message).toBe('No user nobody-at-all.');
  });
});

describe('profile changes racing each other', () => {
  it("a user's change of their own names never undoes a superuser's change of their level made meanwhile: raced, round after round", async () => {
    const ROUNDS = 15;
    const user = await createUser('faculty');
    const token = as(await tokenOf(api, user));
    let reread = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const [own, demotion] = await Promise.all([
        patch(`/users/${user.userId}`, { first_name: `Round${round}` }, token),
        patch(`/users/${user.userId}`, { level: 'user' }, su),
      ]);
      expect(demotion.json.data?.level, demotion.text).toBe('user');
      expect(own.json.status, own.text).toBe('success');
      if (own.json.data.level === 'user') reread++;
      // Both changes hold, whichever came first.
      expect(await getUser(user.userId), `round ${round}`).toMatchObject({ givenName: `Round${round}`, accessLevel: 'user' });
      const promotion = await patch(`/users/${user.userId}`, { level: 'faculty' }, su);
      expect(promotion.json.data?.level, promotion.text).toBe('faculty');
    }
    // The trail records each change as it held: three entries a round, each before what the one before it left.
    const trail = await storedTrail({ userId: user.userId });
    expect(trail).toHaveLength(3 * ROUNDS);
    let level = 'faculty';
    let name = 'Given';
    for (const { before, after } of trail as { before: Record<string, string>; after: Record<string, string> }[]) {
      if (after.level) {
        expect(before.level).toBe(level);
        level = after.level;
      }
      if (after.first_name) {
        expect(before.first_name).toBe(name);
        name = after.first_name;
      }
    }
    console.log(`own name change raced with a demotion: ${reread} of ${ROUNDS} answered the demotion's level`);
  }, 300_000);
});

describe('disabling an account', () => {
  const DISABLED = 'This account is disabled. Ask an administrator to enable it again.';
  /** What a refused login could have written: the account, its session, its audit trail. */
  async function written(userId: string) {
    const { Item: session } = await dynamo().send(
      new GetCommand({ TableName: tableName(tables.sessions), Key: { userId }, ConsistentRead: true }),
    );
    return { user: await getUser(userId), session, audit: await storedTrail({ userId }) };
  }

  it('superusers disable a user: their token stops working and password logins are refused, writing nothing; enabling lets them in again', async () => {
    const user = await createUser();
    const token = await tokenOf(api, user);
    expect((await api.get('/me', as(token))).httpStatus).toBe(200);

    const disabled = await patch(`/users/${user.userId}`, { disabled: true }, su);
    expect(disabled.json).toEqual({
      status: 'success',
      data: { user_id: user.userId, first_name: 'Given', last_name: 'Family', email: user.email, level: 'user', disabled: true },
    });
    expect((await api.get(`/users/${user.userId}`, su)).json.data.disabled).toBe(true);
    const listed = (await api.get('/users', su)).json.data as { user_id: string; disabled: boolean }[];
    expect(listed.find((one) => one.user_id === user.userId)?.disabled).toBe(true);
    const me = await api.get('/me', as(token));
    expect([me.httpStatus, me.json.message]).toEqual([401, UNAUTHENTICATED]);

    const before = await written(user.userId);
    const refused = await api.postJson('/token', { user_id: user.userId, password: user.password }, { Prefer: 'http-status' });
    expect([refused.httpStatus, refused.json]).toEqual([401, { status: 'fail', message: DISABLED }]);
    // A wrong password learns nothing about the account.
    expect((await api.postJson('/token', { user_id: user.userId, password: 'wrong' })).json.message).toBe(
      'Could not login using that user id or password.',
    );
    expect(await written(user.userId)).toEqual(before);

    // Other changes leave it disabled.
    expect((await patch(`/users/${user.userId}`, { first_name: 'Renamed' }, su)).json.data).toMatchObject({
      first_name: 'Renamed',
      disabled: true,
    });
    expect((await getUser(user.userId))?.disabled).toBe(true);
    expect((await patch(`/users/${user.userId}`, { disabled: false }, su)).json.data.disabled).toBe(false);
    const login = await api.postJson('/token', { user_id: user.userId, password: user.password });
    expect(login.json.status, login.text).toBe('success');
    expect((await api.get('/me', as(login.json.data.token as string))).httpStatus).toBe(200);

    const trail = await storedTrail({ userId: user.userId });
    expect(trail.map(({ actor, action, before, after }) => ({ actor, action, before, after }))).toEqual([
      { actor: superuser.userId, action: 'user.changed', before: { disabled: false }, after: { disabled: true } },
      { actor: superuser.userId, action: 'user.changed', before: { first_name: 'Given' }, after: { first_name: 'Renamed' } },
      { actor: superuser.userId, action: 'user.changed', before: { disabled: true }, after: { disabled: false } },
    ]);
  });

  it('a password change under way when a superuser disables the account leaves no working token: raced, round after round', async () => {
    const ROUNDS = 10;
    let changed = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const user = await createUser();
      const token = await tokenOf(api, user);
      const [change, disable] = await Promise.all([
        api.postJson('/me/password', { current_password: user.password, new_password: STRONG }, as(token)),
        patch(`/users/${user.userId}`, { disabled: true }, su),
      ]);
      expect(disable.json.data?.disabled, disable.text).toBe(true);
      expect((await getUser(user.userId))?.disabled, `round ${round}`).toBe(true);
      // Either the change came first (and the disabling ended its new token) or it was refused.
      const tokens = [token];
      if (change.json.status === 'success') {
        changed++;
        tokens.push(change.json.data.token as string);
      } else {
        expect(change.json.message, `round ${round}`).toMatch(/^(This account is disabled\.|Unauthenticated access\.)/);
      }
      for (const one of tokens) {
        expect((await api.get('/me', as(one))).json.message, `round ${round}`).toBe(UNAUTHENTICATED);
        const again = await api.postJson('/me/password', { current_password: STRONG, new_password: `${STRONG} again` }, as(one));
        expect(again.json.message, `round ${round}`).toBe(UNAUTHENTICATED);
      }
      const { Item: session } = await dynamo().send(
        new GetCommand({ TableName: tableName(tables.sessions), Key: { userId: user.userId }, ConsistentRead: true }),
      );
      expect(session, `round ${round}`).toBeUndefined();
    }
    console.log(`password change raced with a disabling: ${changed} of ${ROUNDS} changes came first`);
  }, 300_000);

  it('a token of a disabled account is refused even when its session outlived the disabling', async () => {
    const user = await createUser();
    const token = await tokenOf(api, user);
    // As a write under way at the disabling would leave it: the account disabled, the session still there.
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(tables.users),
        Key: { userId: user.userId },
        UpdateExpression: 'SET disabled = :true',
        ExpressionAttributeValues: { ':true': true },
      }),
    );
    expect((await api.get('/me', as(token))).json.message).toBe(UNAUTHENTICATED);
    const change = await api.postJson('/me/password', { current_password: user.password, new_password: STRONG }, as(token));
    expect(change.json.message).toBe(UNAUTHENTICATED);
    expect((await api.postJson('/token', { user_id: user.userId, password: STRONG })).json.status).toBe('fail');
  });

  it('only superusers disable, never their own account; the field must be true or false', async () => {
    const user = await createUser();
    const faculty = await createUser('faculty');
    const facultyToken = await tokenOf(api, faculty);
    for (const [token, target] of [
      [facultyToken, user.userId],
      [facultyToken, faculty.userId],
    ] as const) {
      const refused = await patch(`/users/${target}`, { disabled: true }, as(token));
      expect(refused.httpStatus).toBe(403);
    }
    const own = await patch(`/users/${faculty.userId}`, { disabled: true }, as(facultyToken));
    expect(own.json.message).toBe('You may change only your own first_name and last_name; disabled is changed by a superuser.');
    const self = await patch(`/users/${superuser.userId}`, { disabled: true }, su);
    expect([self.httpStatus, self.json.message]).toEqual([403, 'Superusers cannot disable their own account; another superuser can.']);
    const notBoolean = await patch(`/users/${user.userId}`, { disabled: 'true' }, su);
    expect([notBoolean.httpStatus, notBoolean.json.message]).toEqual([400, 'The field disabled must be true or false.']);
    for (const id of [user.userId, faculty.userId, superuser.userId]) expect((await getUser(id))?.disabled).toBeUndefined();
    expect((await api.get('/me', su)).httpStatus).toBe(200);
    expect((await api.get('/me', as(facultyToken))).httpStatus).toBe(200);
  });
});

describe('POST /api/users/{user_id}/password', () => {
  it('sets a generated password shown once, ending the user’s token; a chosen one must be strong', async () => {
    const user = await createUser();
    const token = await tokenOf(api, user);
    const set = await api.postJson(`/users/${user.userId}/password`, {}, su);
    expect(set.json).toEqual({ status: 'success', data: { user_id: user.userId, password: expect.any(String) } });
    expect((await api.get('/me', as(token))).json.message).toBe(UNAUTHENTICATED);
    expect((await api.postJson('/token', { user_id: user.userId, password: user.password })).json.status).toBe('fail');
    expect((await api.postJson('/token', { user_id: user.userId, password: set.json.data.password })).json.status).toBe('success');

    const weak = await api.postJson(`/users/${user.userId}/password`, { password: 'qwertyuiop' }, su);
    expect([weak.httpStatus, weak.json.message]).toEqual([400, 'The password is one of the most common passwords; choose another.']);
    const chosen = await api.postJson(`/users/${user.userId}/password`, { password: STRONG }, su);
    expect(chosen.json.data).toEqual({ user_id: user.userId, password: null });
    expect((await api.postJson('/token', { user_id: user.userId, password: STRONG })).json.status).toBe('success');

    const trail = await storedTrail({ userId: user.userId });
    expect(trail.map((entry) => [entry.actor, entry.action, entry.before, entry.after])).toEqual([
      [superuser.userId, 'user.password-set', undefined, undefined],
      [superuser.userId, 'user.password-set', undefined, undefined],
    ]);
    expect(JSON.stringify(trail)).not.toContain(STRONG);

    const missing = await api.postJson('/users/nobody-at-all/password', {}, su);
    expect([missing.httpStatus, missing.json.message]).toEqual([404, 'No user nobody-at-all.']);
    expect(await storedTrail({ userId: 'nobody-at-all' })).toEqual([]);
    // An id longer than any key DynamoDB takes names no one, on every route that reads one from its path.
    const long = 'a'.repeat(3000);
    const named = `No user ${long.slice(0, 80)}.`;
    expect((await api.postJson(`/users/${long}/password`, {}, su)).json.message).toBe(named);
    expect((await api.get(`/users/${long}`, su)).json.message).toBe(named);
    expect((await patch(`/users/${long}`, { first_name: 'X' }, su)).json.message).toBe(named);
    expect((await api.get(`/users/${long}/audit`, su)).json).toEqual({ status: 'success', data: [] });
  });
});

describe('POST /api/me/password', () => {
  it('changes the caller’s password: the old token and password stop working, the answer carries a new token', async () => {
    const user = await createUser();
    const old = await tokenOf(api, user);
    const answer = await api.postJson('/me/password', { current_password: user.password, new_password: STRONG }, as(old));
    expect(answer.json.status, answer.text).toBe('success');
    expect(Object.keys(answer.json.data)).toEqual(['token']);
    expect((await api.get('/me', as(old))).json.message).toBe(UNAUTHENTICATED);
    expect((await api.get('/me', as(answer.json.data.token))).json.data.user_id).toBe(user.userId);
    expect((await api.postJson('/token', { user_id: user.userId, password: user.password })).json.status).toBe('fail');
    expect((await api.postJson('/token', { user_id: user.userId, password: STRONG })).json.status).toBe('success');
    const trail = await storedTrail({ userId: user.userId });
    expect(trail.map((entry) => [entry.actor, entry.action])).toEqual([[user.userId, 'user.password-changed']]);
    expect(JSON.stringify(trail)).not.toContain(STRONG);
    expect(JSON.stringify(trail)).not.toContain(user.password);
  });

  it('refuses a weak new password saying why, and missing fields, changing nothing', async () => {
    const user = await createUser();
    const token = as(await tokenOf(api, user));
    const cases: [Record<string, unknown>, string][] = [
      [{ current_password: user.password }, 'Give current_password and new_password.'],
      [{ current_password: user.password, new_password: 'abc123' }, 'The password must be at least 10 characters long.'],
      [{ current_password: user.password, new_password: user.userId }, 'The password cannot be the user id.'],
      [
        { current_password: user.password, new_password: 'QWERTYUIOP' },
        'The password is one of the most common passwords; choose another.',
      ],
    ];
    for (const [body, message] of cases) {
      const answer = await api.postJson('/me/password', body, token);
      expect([answer.httpStatus, answer.json], JSON.stringify(body)).toEqual([400, { status: 'fail', message }]);
    }
    expect((await api.get('/me', token)).json.status).toBe('success');
    expect(await storedTrail({ userId: user.userId })).toEqual([]);
  });

  it('counts a wrong current password as a failed login: enough of them lock password changes out', async () => {
    vi.stubEnv('LOGIN_MAX_FAILURES', '2');
    const user = await createUser();
    const token = as(await tokenOf(api, user));
    for (let i = 0; i < 2; i++) {
      const wrong = await api.postJson('/me/password', { current_password: 'not-the-password', new_password: STRONG }, token);
      expect([wrong.httpStatus, wrong.json.message]).toEqual([403, 'The current password is not right.']);
    }
    const locked = await api.postJson('/me/password', { current_password: user.password, new_password: STRONG }, token);
    expect(locked.httpStatus).toBe(429);
    expect(locked.json.message).toMatch(/^Too many failed logins for this user id\. Try again in \d+ seconds?\.$/);
    expect((await api.get('/me', token)).json.status).toBe('success');
    expect((await api.postJson('/token', { user_id: user.userId, password: user.password })).json.status).toBe('success');
  });
});

describe('GET /api/terms', () => {
  it('lists every term newest first, to any valid token', async () => {
    const [older, newer] = [uniqueCode('t'), uniqueCode('t')];
    await putTerm({ termId: older, name: 'Older', startDate: '2001-01-08', endDate: '2001-05-01' });
    await putTerm({ termId: newer, name: 'Newer', startDate: '2001-08-27', endDate: '2001-12-15' });
    const answer = await api.get('/terms', as(await tokenOf(api, await createUser())));
    const terms = answer.json.data as { term_id: string; start_date: string }[];
    const starts = terms.map((term) => term.start_date);
    expect(starts).toEqual([...starts].sort().reverse());
    const mine = terms.filter((term) => term.term_id === older || term.term_id === newer);
    expect(mine).toEqual([
      { term_id: newer, term_name: 'Newer', start_date: '2001-08-27', end_date: '2001-12-15' },
      { term_id: older, term_name: 'Older', start_date: '2001-01-08', end_date: '2001-05-01' },
    ]);
    expect((await api.get('/terms', { Prefer: 'http-status' })).httpStatus).toBe(401);
  });
});

describe('audit trails', () => {
  it("a user's: superusers read it newest first, page by page", async () => {
    const user = await createUser();
    for (const name of ['One', 'Two', 'Three']) await patch(`/users/${user.userId}`, { first_name: name }, su);
    const first = await api.get(`/users/${user.userId}/audit?page_size=2`, su);
    expect(first.json.data.map((entry: { after: { first_name: string } }) => entry.after.first_name)).toEqual(['Three', 'Two']);
    expect(first.json.data[0]).toEqual({
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      actor: superuser.userId,
      action: 'user.changed',
      target: user.userId,
      before: { first_name: 'Two' },
      after: { first_name: 'Three' },
    });
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    const second = await api.get(next!.replace(/^\/api/, ''), su);
    expect(second.json.data.map((entry: { after: { first_name: string } }) => entry.after.first_name)).toEqual(['One']);
    expect(second.headers.get('link')).toBeNull();
    const own = await api.get(`/users/${user.userId}/audit`, as(await tokenOf(api, user)));
    expect(own.json.message).toBe(DENIED);
  });

  it("a course's: its instructors read the entries other changes wrote, newest first", async () => {
    const instructor = await createUser('faculty');
    const course = await createCourse(await createTerm('2026-08-24'), instructor);
    const scope = { courseId: courseId(course.term, course.course) };
    const at = (seconds: number) => new Date(Date.UTC(2026, 8, 1, 12, 0, seconds));
    await transactWrite([
      auditEntry(scope, { actor: instructor.userId, action: 'member.enrolled', target: 's1', after: { group: 'Student' } }, at(1)),
      auditEntry(scope, { actor: 'admin', action: 'member.dropped', target: 's1', before: { group: 'Student' } }, at(2)),
    ]);
    const answer = await api.get(`/${course.term}/${course.course}/audit`, as(await tokenOf(api, instructor)));
    expect(answer.json.data).toEqual([
      { at: at(2).toISOString(), actor: 'admin', action: 'member.dropped', target: 's1', before: { group: 'Student' }, after: null },
      {
        at: at(1).toISOString(),
        actor: instructor.userId,
        action: 'member.enrolled',
        target: 's1',
        before: null,
        after: { group: 'Student' },
      },
    ]);
    const other = await createUser('faculty');
    expect((await api.get(`/${course.term}/${course.course}/audit`, as(await tokenOf(api, other)))).json.message).toBe(DENIED);
  });
});
