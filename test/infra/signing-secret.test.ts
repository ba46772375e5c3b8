import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSecret, signingKey } from '#shared/auth/signing-secret.ts';

// A stand-in for Secrets Manager's GetSecretValue, to check how deployed functions read the key.
const SECRET = 'a'.repeat(20) + 'B7'.repeat(22); // 64 letters and digits, as the stack generates
const secrets: Record<string, string> = { 'arn:signing': SECRET, 'arn:short': 'tooShort' };
const requested: string[] = [];
let server: Server;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { SecretId } = JSON.parse(body) as { SecretId: string };
      requested.push(`${request.headers['x-amz-target']} ${SecretId}`);
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ ARN: SecretId, Name: SecretId, SecretString: secrets[SecretId], VersionId: 'v1' }));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${port}`,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  });
});

afterAll(async () => {
  delete process.env.SIGNING_SECRET_ARN;
  await new Promise((done) => server.close(done));
});

describe('the signing key of a deployed function', () => {
  it('is the Secrets Manager secret named by SIGNING_SECRET_ARN, read once and cached', async () => {
    process.env.SIGNING_SECRET_ARN = 'arn:signing';
    const key = await signingKey();
    expect(key).toEqual(decodeSecret(SECRET));
    expect(key.length).toBeGreaterThanOrEqual(32);
    expect(await signingKey()).toEqual(key);
    expect(requested).toEqual(['secretsmanager.GetSecretValue arn:signing']);
  });

  it('must hold at least 256 bits', async () => {
    process.env.SIGNING_SECRET_ARN = 'arn:short';
    await expect(signingKey()).rejects.toThrow(/at least 32 bytes/);
  });
});
