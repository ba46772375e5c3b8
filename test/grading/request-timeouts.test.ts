import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';

// A request that gets no answer (a hung connection) must fail after its time-out, not hold its
// caller for ever: a grading worker waiting on it would keep its wake-up, its build session and its
// jobs' leases with nothing logged. DynamoDB's after DYNAMODB_REQUEST_TIMEOUT_MS, the worker's S3
// and CodeBuild requests after their own.

const sockets = new Set<Socket>();
// Accepts connections and never answers.
const silent = createServer((socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
});
const VARIABLES = [
  'DYNAMODB_ENDPOINT',
  'DYNAMODB_REQUEST_TIMEOUT_MS',
  'AWS_ENDPOINT_URL_S3',
  'AWS_ENDPOINT_URL_CODEBUILD',
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
] as const;
const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));

beforeAll(async () => {
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  const silentUrl = `http://127.0.0.1:${address.port}`;
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: silentUrl,
    DYNAMODB_REQUEST_TIMEOUT_MS: '300',
    AWS_ENDPOINT_URL_S3: silentUrl,
    AWS_ENDPOINT_URL_CODEBUILD: silentUrl,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  });
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
  for (const name of VARIABLES) {
    if (saved[name] === undefined) Reflect.deleteProperty(process.env, name);
    else process.env[name] = saved[name];
  }
});

it('a request DynamoDB never answers fails after the request time-out (its retries included)', { timeout: 30_000 }, async () => {
  // A client of its own, made with these settings (the setup's points at DynamoDB Local).
  vi.resetModules();
  const { getItems } = await import('#shared/data/items.ts');
  const { queueRef } = await import('#shared/data/jobs.ts');
  const outcome = await Promise.race([
    getItems({ queue: queueRef() }).then(
      () => 'answered',
      (error: Error) => error.name,
    ),
    new Promise((resolve) => setTimeout(() => resolve('still waiting after 20 s'), 20_000)),
  ]);
  expect(outcome).toBe('TimeoutError');
});

it('the grading worker’s S3 and CodeBuild requests that get no answer fail after their time-out', { timeout: 60_000 }, async () => {
  const { sandboxClients } = await import('#shared/grading/builds/codebuild.ts');
  const { BatchGetBuildsCommand } = await import('@aws-sdk/client-codebuild');
  const { GetObjectCommand } = await import('@aws-sdk/client-s3');
  const clients = await sandboxClients(300);
  const outcome = (request: Promise<unknown>) =>
    Promise.race([
      request.then(
        () => 'answered',
        (error: Error) => error.name,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting after 20 s'), 20_000)),
    ]);
  const [codebuild, s3] = await Promise.all([
    outcome(clients.codebuild.send(new BatchGetBuildsCommand({ ids: ['project:build'] }))),
    outcome(clients.s3.send(new GetObjectCommand({ Bucket: 'jobs', Key: 'jobs/result.json' }))),
  ]);
  expect({ codebuild, s3 }).toEqual({ codebuild: 'TimeoutError', s3: 'TimeoutError' });
});
