import { describe, expect, it } from 'vitest';
import { signToken, verifyToken } from '#shared/auth/jwt.ts';

describe('token verification', () => {
  const issuedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
  const claims = { userId: 'amy', tokenId: 't-1', issuedAt, expiresAt: new Date(issuedAt.getTime() + 60_000), method: 'password' as const };

  it('still refuses a remembered token once it has expired', async () => {
    const token = await signToken(claims);
    expect(await verifyToken(token)).toEqual(claims);
    expect(await verifyToken(token)).toEqual(claims);
    expect(await verifyToken(token, new Date(issuedAt.getTime() + 61_000))).toBeUndefined();
  });

  it('never takes a changed token for a remembered one', async () => {
    const token = await signToken(claims);
    await verifyToken(token);
    const [header, payload, signature] = token.split('.');
    const changed = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'admin' })).toString(
      'base64url',
    );
    expect(await verifyToken(`${header}.${changed}.${signature}`)).toBeUndefined();
  });
});
