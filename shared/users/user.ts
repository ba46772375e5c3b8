import { accessLevels, type AccessLevel, type User } from '#shared/data/users.ts';

export { accessLevels, type AccessLevel, type User } from '#shared/data/users.ts';

/** User ids: 1–64 characters of letters, digits and `._@+-`, starting with a letter or digit. */
export { isValidUserId } from '#shared/ids.ts';

export const isAccessLevel = (value: string): value is AccessLevel => (accessLevels as readonly string[]).includes(value);

/** "Faculty" as the API means it: any access level above plain user (faculty or superuser). */
export const isFaculty = (user: Pick<User, 'accessLevel'>): boolean => user.accessLevel !== 'user';
export const isSuperuser = (user: Pick<User, 'accessLevel'>): boolean => user.accessLevel === 'superuser';
