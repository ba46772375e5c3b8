import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `127.0.0.1:<port>`, for WEBHOOK_ALLOWED_HOSTS. */
  readonly host: string;
  readonly received: ReceivedRequest[];
  /** The statuses to answer the next requests for `path` with, in order; then `otherwise` (200 unless told). */
  answer(path: string, statuses: number[], otherwise?: number): void;
  /** Resolves with the requests once `count` have arrived for `path` (within `timeoutMs`). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A webhook receiver on loopback that records every request and answers as told. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const answers = new Map<string, { queued: number[]; otherwise: number }>();
  const waiters = new Set<() => void>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        at: Date.now(),
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const plan = answers.get(request.url ?? '');
      const status = plan?.queued.shift() ?? plan?.otherwise ?? 200;
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : `failing with ${status}`);
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    received,
    answer: (path, statuses, otherwise = 200) => {
      answers.set(path, { queued: [...statuses], otherwise });
    },
    waitFor: (path, count, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const matching = received.filter((request) => request.path === path);
          if (matching.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(matching);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `${received.filter((request) => request.path === path).length} of ${count} requests to ${path} arrived within ${timeoutMs} ms`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
