/** System access levels of reference.md §4 (1 superuser, 2 faculty, 3 user). */
export const accessLevels = ['superuser', 'faculty', 'user'] as const;
export type AccessLevel = (typeof accessLevels)[number];

export interface User {
  readonly userId: string;
  readonly givenName: string;
  readonly familyName: string;
  readonly email: string;
  readonly accessLevel: AccessLevel;
}

const USER_ID = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/;

/** User ids: 1–64 characters of letters, digits and `._@+-`, starting with a letter or digit. */
export const isValidUserId = (userId: string): boolean => USER_ID.test(userId);

export const isAccessLevel = (value: string): value is AccessLevel => (accessLevels as readonly string[]).includes(value);

/** "Faculty" in api.md: access level below user. */
export const isFaculty = (user: Pick<User, 'accessLevel'>): boolean => user.accessLevel !== 'user';
export const isSuperuser = (user: Pick<User, 'accessLevel'>): boolean => user.accessLevel === 'superuser';
