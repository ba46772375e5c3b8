import { setPassword } from '#shared/auth/tokens.ts';
import { putUser } from '#shared/data/users.ts';
import type { User } from '#shared/users/user.ts';

/** The demo dataset; every password equals its user id (local use only). */
export const demoUsers: readonly User[] = [
  { userId: 'admin', givenName: 'Alex', familyName: 'Admin', email: 'admin@example.edu', accessLevel: 'superuser' },
  { userId: 'instructor', givenName: 'Ines', familyName: 'Instructor', email: 'instructor@example.edu', accessLevel: 'faculty' },
  { userId: 'ta', givenName: 'Theo', familyName: 'Assistant', email: 'ta@example.edu', accessLevel: 'user' },
  { userId: 'mentor', givenName: 'Mia', familyName: 'Mentor', email: 'mentor@example.edu', accessLevel: 'user' },
  { userId: 'student', givenName: 'Sam', familyName: 'Student', email: 'student@example.edu', accessLevel: 'user' },
  { userId: 'student2', givenName: 'Jordan', familyName: 'Lee', email: 'student2@example.edu', accessLevel: 'user' },
  { userId: 'student3', givenName: 'Riley', familyName: 'Garcia', email: 'student3@example.edu', accessLevel: 'user' },
];

export async function seedDemoData(): Promise<void> {
  await Promise.all(
    demoUsers.map(async (user) => {
      await putUser(user);
      await setPassword(user.userId, user.userId);
    }),
  );
}
