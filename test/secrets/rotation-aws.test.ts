import { createServer, type Server } from 'node:http';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signToken, verifyToken } from '#shared/auth/jwt.ts';
import { decodeSecret, generateSecret, signingKey } from '#shared/auth/signing-secret.ts';

// A stand-in for Secrets Manager's GetSecretValue: each secret has an AWSCURRENT version (with the
// time it was created, i.e. the last rotation) and maybe an AWSPREVIOUS one.
interface Versions {
  current: string;
  createdAt: Date;
  previous?: string;
}
const secrets = new Map<string, Versions>();
const requested: string[] = [];
let server: Server;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { SecretId, VersionStage } = JSON.parse(body) as { SecretId: string; VersionStage?: string };
      requested.push(`${SecretId} ${VersionStage}`);
      const versions = secrets.get(SecretId);
      const value = VersionStage === 'AWSPREVIOUS' ? versions?.previous : versions?.current;
      if (!versions || value === undefined) {
        response.writeHead(400, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': 'ResourceNotFoundException' });
        response.end(
          JSON.stringify({
            __type: 'ResourceNotFoundException',
            message: "Secrets Manager can't find the specified secret value for staging label",
          }),
        );
        return;
      }
      const createdAt = VersionStage === 'AWSPREVIOUS' ? versions.createdAt.getTime() - 86_400_000 : versions.createdAt.getTime();
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ ARN: SecretId, Name: SecretId, SecretString: value, VersionId: 'v', CreatedDate: createdAt / 1000 }));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', `http://127.0.0.1:${port}`);
  vi.stubEnv('AWS_REGION', 'eu-west-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await new Promise((done) => server.close(done));
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
