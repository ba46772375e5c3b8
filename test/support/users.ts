import { randomUUID } from 'node:crypto';
import { setPassword } from '#shared/auth/tokens.ts';
import { putUser } from '#shared/data/users.ts';
import type { AccessLevel, User } from '#shared/users/user.ts';

export interface TestUser extends User {
  readonly password: string;
}

/** A new user with a unique id and a password. */
export async function createUser(accessLevel: AccessLevel = 'user', prefix = 'user'): Promise<TestUser> {
  const userId = `${prefix}-${randomUUID().slice(0, 8)}`;
  const user: TestUser = {
    userId,
    givenName: 'Given',
    familyName: 'Family',
    email: `${userId}@example.edu`,
    accessLevel,
    password: `pw-${randomUUID()}`,
  };
  await putUser(user);
  await setPassword(userId, user.password);
  return user;
}
