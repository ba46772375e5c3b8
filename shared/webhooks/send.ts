import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { DeliveryAttempt } from './delivery.ts';
import { checkWebhookAddress, type Resolve } from './address.ts';
import { describeConnectionError } from '#shared/network/connection-errors.ts';

const RESPONSE_SHOWN = 200;
const RESPONSE_READ_LIMIT = 4_096;

export interface SendOptions {
  readonly allowedHosts: readonly string[];
  readonly timeoutMs: number;
  readonly resolve?: Resolve;
  readonly now?: () => Date;
}

/**
 * One attempt: POSTs `body` to `url` with `headers`, connecting only to the address the check
 * approved (handed to the socket through `lookup`, so a second DNS answer cannot swap it).
 * Redirects are not followed: a 3xx is a failed attempt like any other non-2xx answer.
 */
export async function postWebhook(
  url: URL,
  body: string,
  headers: Readonly<Record<string, string>>,
  options: SendOptions,
): Promise<DeliveryAttempt> {
  const at = (options.now?.() ?? new Date()).toISOString();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const check = await checkWebhookAddress(url, options.allowedHosts, options.resolve);
  if (!check.ok) return { at, status: null, durationMs: elapsed(), error: check.problem };
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address: check.address, family: check.family }]);
    else callback(null, check.address, check.family);
  };
  const payload = Buffer.from(body);
  try {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = (url.protocol === 'https:' ? https : http).request(url, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(payload.length),
          'user-agent': 'course-submission-api-webhooks',
        },
        lookup: pinned,
        agent: false,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      request.on('response', resolve);
      request.on('error', reject);
      request.end(payload);
    });
    const text = await readStart(response);
    return { at, status: response.statusCode ?? null, durationMs: elapsed(), ...(text ? { response: text } : {}) };
  } catch (error) {
    const name = (error as Error).name;
    const message =
      name === 'AbortError' || name === 'TimeoutError'
        ? `no answer within ${options.timeoutMs / 1000} s`
        : describeConnectionError(error as NodeJS.ErrnoException);
    return { at, status: null, durationMs: elapsed(), error: message };
  }
}

/** The start of the answer, for the delivery log; the rest is discarded unread. */
async function readStart(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_READ_LIMIT) {
      response.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_SHOWN);
}
