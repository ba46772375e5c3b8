import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';

// A DynamoDB request that gets no answer (a hung connection) must fail after
// DYNAMODB_REQUEST_TIMEOUT_MS, not hold its caller for ever: a grading worker waiting on it would
// keep its wake-up, its build session and its jobs' leases with nothing logged.

const sockets = new Set<Socket>();
// Accepts connections and never answers.
const silent = createServer((socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
});
const saved = { endpoint: process.env.DYNAMODB_ENDPOINT, timeout: process.env.DYNAMODB_REQUEST_TIMEOUT_MS };

beforeAll(async () => {
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  process.env.DYNAMODB_ENDPOINT = `http://127.0.0.1:${address.port}`;
  process.env.DYNAMODB_REQUEST_TIMEOUT_MS = '300';
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
  if (saved.endpoint === undefined) delete process.env.DYNAMODB_ENDPOINT;
  else process.env.DYNAMODB_ENDPOINT = saved.endpoint;
  if (saved.timeout === undefined) delete process.env.DYNAMODB_REQUEST_TIMEOUT_MS;
  else process.env.DYNAMODB_REQUEST_TIMEOUT_MS = saved.timeout;
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
