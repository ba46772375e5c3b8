import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signToken, verifyToken } from '#shared/auth/jwt.ts';
import { decodeSecret, generateSecret, signingKey } from '#shared/auth/signing-secret.ts';
import { secretsManagerEnvironment, startSecretsManager, type SecretsManagerStandIn } from '../support/secrets-manager.ts';

// A stand-in for Secrets Manager's GetSecretValue: each secret has an AWSCURRENT version (with the
// time it was created, i.e. the last rotation) and maybe an AWSPREVIOUS one.
interface Versions {
  current: string;
  createdAt: Date;
  previous?: string;
}
const secrets = new Map<string, Versions>();
const requested: string[] = [];
let server: SecretsManagerStandIn;

beforeAll(async () => {
  server = await startSecretsManager((_, { SecretId, VersionStage }) => {
    requested.push(`${SecretId} ${VersionStage}`);
    const versions = secrets.get(SecretId);
    const value = VersionStage === 'AWSPREVIOUS' ? versions?.previous : versions?.current;
    if (!versions || value === undefined) {
      return {
        status: 400,
        errorType: 'ResourceNotFoundException',
        json: {
          __type: 'ResourceNotFoundException',
          message: "Secrets Manager can't find the specified secret value for staging label",
        },
      };
    }
    const createdAt = VersionStage === 'AWSPREVIOUS' ? versions.createdAt.getTime() - 86_400_000 : versions.createdAt.getTime();
    return { json: { ARN: SecretId, Name: SecretId, SecretString: value, VersionId: 'v', CreatedDate: createdAt / 1000 } };
  });
  for (const [name, value] of Object.entries(secretsManagerEnvironment(server.url))) vi.stubEnv(name, value);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

const DAY = 86_400_000;
/** The 64 letters and digits Secrets Manager generates (base64url-decodable). */
const awsSecret = () => generateSecret().replace(/[-_]/g, 'x').slice(0, 43) + 'A'.repeat(21);
const tokenSignedWith = (secret: string, subject: string) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(subject)
    .setJti(`${subject}-1`)
    .setIssuer('course-submission-api')
    .setIssuedAt()
    .sign(decodeSecret(secret));

describe('signing-secret rotation in AWS (AWSCURRENT and AWSPREVIOUS)', () => {
  it('accepts a token of the AWSPREVIOUS version within the grace period after the rotation', async () => {
    const [previous, current] = [awsSecret(), awsSecret()];
    secrets.set('arn:recent', { current, previous, createdAt: new Date(Date.now() - 2 * DAY) });
    vi.stubEnv('SIGNING_SECRET_ARN', 'arn:recent');
    expect(await verifyToken(await tokenSignedWith(previous, 'old'))).toMatchObject({ userId: 'old' });
    expect(await verifyToken(await tokenSignedWith(current, 'new'))).toMatchObject({ userId: 'new' });
    expect(await verifyToken(await tokenSignedWith(awsSecret(), 'forged'))).toBeUndefined();

    // New tokens are signed with the current version.
    const issued = await signToken({ userId: 'u', tokenId: 'j', issuedAt: new Date(), expiresAt: null });
    expect(await verifyToken(issued)).toMatchObject({ userId: 'u' });
    expect(await signingKey()).toEqual(decodeSecret(current));
    // Each version is read once and cached.
    expect(requested.filter((line) => line.startsWith('arn:recent '))).toEqual(['arn:recent AWSCURRENT', 'arn:recent AWSPREVIOUS']);
  });

  it('refuses it once the grace period since the rotation is over, without reading AWSPREVIOUS', async () => {
    const [previous, current] = [awsSecret(), awsSecret()];
    secrets.set('arn:old-rotation', { current, previous, createdAt: new Date(Date.now() - 8 * DAY) });
    vi.stubEnv('SIGNING_SECRET_ARN', 'arn:old-rotation');
    expect(await verifyToken(await tokenSignedWith(previous, 'old'))).toBeUndefined();
    expect(requested.filter((line) => line.startsWith('arn:old-rotation '))).toEqual(['arn:old-rotation AWSCURRENT']);

    secrets.set('arn:short-grace', { current, previous, createdAt: new Date(Date.now() - 2 * DAY) });
    vi.stubEnv('SIGNING_SECRET_ARN', 'arn:short-grace');
    vi.stubEnv('SIGNING_SECRET_GRACE_SECONDS', String(DAY / 1000));
    expect(await verifyToken(await tokenSignedWith(previous, 'old'))).toBeUndefined();
    vi.stubEnv('SIGNING_SECRET_GRACE_SECONDS', String((3 * DAY) / 1000));
    expect(await verifyToken(await tokenSignedWith(previous, 'old'))).toMatchObject({ userId: 'old' });
    vi.stubEnv('SIGNING_SECRET_GRACE_SECONDS', '');
  });

  it('works with a secret that was never rotated (no AWSPREVIOUS version)', async () => {
    const current = awsSecret();
    secrets.set('arn:fresh', { current, createdAt: new Date(Date.now() - 60_000) });
    vi.stubEnv('SIGNING_SECRET_ARN', 'arn:fresh');
    expect(await verifyToken(await tokenSignedWith(current, 'me'))).toMatchObject({ userId: 'me' });
    expect(await verifyToken(await tokenSignedWith(awsSecret(), 'forged'))).toBeUndefined();
    expect(await verifyToken(await tokenSignedWith(awsSecret(), 'forged'))).toBeUndefined();
    expect(requested.filter((line) => line.startsWith('arn:fresh '))).toEqual(['arn:fresh AWSCURRENT', 'arn:fresh AWSPREVIOUS']);
  });
});
