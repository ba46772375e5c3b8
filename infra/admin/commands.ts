import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { setPassword } from '#shared/auth/tokens.ts';
import { getUser, listUsers, putUser } from '#shared/data/users.ts';
import { accessLevels, isAccessLevel, isValidUserId, type AccessLevel } from '#shared/users/user.ts';

export const usage = `Administer users (local DynamoDB by default).

Usage: npm run admin -- <command> [options]

Commands:
  add-user <user_id> --given-name <name> --family-name <name> --email <address>
           [--level user|faculty|superuser] [--password <password>]
      Adds a user. Without --password a random one is generated and printed once.
  set-password <user_id> [--password <password>]
      Sets a password (random when omitted) and invalidates the user's token.
  set-level <user_id> <user|faculty|superuser>
      Sets the system access level.
  list-users
      Lists every user with access level and e-mail.

Options:
  --aws     use the deployed tables (AWS credentials and the *_TABLE variables) instead of local ones
  --help    show this text`;

export class UsageError extends Error {}

/** Runs one admin command; its output lines go to `print`. */
export async function runAdminCommand(argv: string[], print: (line: string) => void): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'given-name': { type: 'string' },
      'family-name': { type: 'string' },
      email: { type: 'string' },
      level: { type: 'string' },
      password: { type: 'string' },
      aws: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) return print(usage);

  switch (command) {
    case 'add-user': {
      const userId = requireUserId(rest[0]);
      if (await getUser(userId)) throw new UsageError(`User ${userId} already exists.`);
      const givenName = requireOption(values['given-name'], '--given-name');
      const familyName = requireOption(values['family-name'], '--family-name');
      const email = requireOption(values.email, '--email');
      const accessLevel = requireLevel(values.level ?? 'user');
      await putUser({ userId, givenName, familyName, email, accessLevel });
      await setUserPassword(userId, values.password, print);
      return print(`Added ${userId} (${accessLevel}).`);
    }
    case 'set-password': {
      const userId = await requireExistingUser(rest[0]);
      await setUserPassword(userId, values.password, print);
      return print(`Password of ${userId} set; their token no longer works.`);
    }
    case 'set-level': {
      const user = await getUser(await requireExistingUser(rest[0]));
      const accessLevel = requireLevel(rest[1]);
      await putUser({ ...user!, accessLevel });
      return print(`${user!.userId} is now ${accessLevel}.`);
    }
    case 'list-users': {
      for (const user of await listUsers()) {
        print([user.userId, user.accessLevel, `${user.givenName} ${user.familyName}`, user.email].join('\t'));
      }
      return;
    }
    default:
      throw new UsageError(`Unknown command "${command}". See --help.`);
  }
}

async function setUserPassword(userId: string, password: string | undefined, print: (line: string) => void) {
  if (password !== undefined && password.length < 1) throw new UsageError('The password cannot be empty.');
  const chosen = password ?? randomBytes(12).toString('base64url');
  await setPassword(userId, chosen);
  if (password === undefined) print(`Generated password for ${userId}: ${chosen}`);
}

function requireUserId(userId: string | undefined): string {
  if (!userId || !isValidUserId(userId)) {
    throw new UsageError('Give a user id of 1–64 letters, digits or ._@+- (starting with a letter or digit).');
  }
  return userId;
}

async function requireExistingUser(userId: string | undefined): Promise<string> {
  const id = requireUserId(userId);
  if (!(await getUser(id))) throw new UsageError(`No user ${id}.`);
  return id;
}

function requireOption(value: string | undefined, name: string): string {
  if (!value?.trim()) throw new UsageError(`${name} is required.`);
  return value.trim();
}

function requireLevel(level: string | undefined): AccessLevel {
  if (!level || !isAccessLevel(level)) throw new UsageError(`The level must be one of ${accessLevels.join(', ')}.`);
  return level;
}
