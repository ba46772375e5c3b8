import type { User } from '#shared/users/user.ts';
import type { TokenClaims } from './jwt.ts';

/** The user behind a valid token. */
export interface Caller extends User {
  readonly token: TokenClaims;
}
