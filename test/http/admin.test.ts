import { describe, expect, it } from 'vitest';
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
      'add-user', 'newfaculty', '--given-name', 'Nora', '--family-name', 'New', '--email', 'nora@example.edu',
      '--level', 'faculty', '--password', 's3cret-pass',
    );
    expect(output).toEqual(['Added newfaculty (faculty).']);
    expect(await getUser('newfaculty')).toEqual({
      userId: 'newfaculty', givenName: 'Nora', familyName: 'New', email: 'nora@example.edu', accessLevel: 'faculty',
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
  });

  it('refuses bad input with a usage error and changes nothing', async () => {
    const user = await createUser();
    await expect(admin('set-level', user.userId, 'king')).rejects.toThrow(UsageError);
    await expect(admin('add-user', '../x', '--given-name', 'a', '--family-name', 'b', '--email', 'c')).rejects.toThrow(UsageError);
    await expect(admin('add-user', user.userId, '--given-name', 'a', '--family-name', 'b', '--email', 'c')).rejects.toThrow(
      /already exists/,
    );
    await expect(admin('set-password', 'nobody-at-all')).rejects.toThrow(/No user/);
    await expect(admin('frobnicate')).rejects.toThrow(/Unknown command/);
    expect((await getUser(user.userId))?.accessLevel).toBe('user');
  });
});
