import { SignJWT, jwtVerify } from 'jose';
import { tokenIssuer } from '#shared/config.ts';
import { signingKey } from './signing-secret.ts';

const ALGORITHM = 'HS256';

export interface TokenClaims {
  readonly userId: string;
  readonly tokenId: string;
  readonly issuedAt: Date;
  /** null when tokens do not expire. */
  readonly expiresAt: Date | null;
}

export async function signToken(claims: TokenClaims): Promise<string> {
  const jwt = new SignJWT({})
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(claims.userId)
    .setJti(claims.tokenId)
    .setIssuer(tokenIssuer())
    .setIssuedAt(epochSeconds(claims.issuedAt));
  if (claims.expiresAt) jwt.setExpirationTime(epochSeconds(claims.expiresAt));
  return jwt.sign(await signingKey());
}

/** The claims of a genuine, unexpired token of ours; undefined for anything else. */
export async function verifyToken(token: string): Promise<TokenClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, await signingKey(), {
      algorithms: [ALGORITHM],
      issuer: tokenIssuer(),
      requiredClaims: ['sub', 'jti', 'iat'],
    });
    if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string') return undefined;
    return {
      userId: payload.sub,
      tokenId: payload.jti,
      issuedAt: new Date(payload.iat! * 1000),
      expiresAt: typeof payload.exp === 'number' ? new Date(payload.exp * 1000) : null,
    };
  } catch {
    return undefined;
  }
}

export const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);
