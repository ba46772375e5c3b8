/**
 * The one way the service asks a platform for something (a registration, a service token, a
 * roster, grades): only to a URL a registration may name (https, or a host LTI_ALLOWED_HOSTS
 * names), connecting only to the address the check approved (a second DNS answer cannot swap it),
 * without following redirects, within a time-out, and reading at most a small answer.
 */
import { lookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isAllowedHost } from '#shared/network/addresses.ts';
import { describeConnectionError } from '#shared/network/connection-errors.ts';
import { checkPlatformAddress, type Resolve } from './platform-address.ts';

/** Each of a register's two requests to the platform fits twice in the function's 25 s. */
export const PLATFORM_TIMEOUT_MS = 8_000;
/** The most bytes of a platform's answer read: a configuration or a client registration is a few KiB. */
export const PLATFORM_ANSWER_LIMIT = 256 * 1024;

/** Why a platform could not be asked, or answered nothing usable: said to the administrator on the page. */
export class PlatformUnreachable extends Error {
  override name = 'PlatformUnreachable';
  /** False for an answer that was there but too large: asking again gets the same. */
  readonly retryable: boolean;

  constructor(message: string, options: { retryable?: boolean } = {}) {
    super(message);
    this.retryable = options.retryable ?? true;
  }
}

export interface PlatformRequest {
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly headers?: Readonly<Record<string, string>>;
  /** A JSON body. */
  readonly json?: unknown;
  /** The JSON body's media type, when a JSON-based one (an AGS score is `application/vnd.ims.lis.v1.score+json`). */
  readonly jsonType?: string;
  /** An `application/x-www-form-urlencoded` body (an OAuth 2 token request). */
  readonly form?: Readonly<Record<string, string>>;
  /** The most bytes of the answer read (PLATFORM_ANSWER_LIMIT when not given): a roster's page may be larger. */
  readonly answerLimit?: number;
}

export interface PlatformResponse {
  readonly status: number;
  readonly contentType: string;
  /** The answer's headers, names in lower case (several of one name joined with `, `): `retry-after`, `link`. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

const LOOKUP_TIMEOUT_MS = 5_000;

/** Asks the platform at `url` (already checked with platformUrl); `field` names the URL in refusals. */
export async function askPlatform(
  field: string,
  url: URL,
  request: PlatformRequest,
  allowedHosts: readonly string[],
): Promise<PlatformResponse> {
  let pinned: { address: string; family: number } | undefined;
  if (!isAllowedHost(url, allowedHosts)) {
    // The addresses the check approved are the ones connected to: looked up once.
    let resolved: readonly { address: string; family: number }[] = [];
    const remember: Resolve = async (hostname) => {
      resolved = await Promise.race([
        lookup(hostname, { all: true, verbatim: true }),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('lookup timed out')), LOOKUP_TIMEOUT_MS).unref()),
      ]);
      return resolved;
    };
    await checkPlatformAddress(field, url, allowedHosts, remember);
    const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    pinned = isIP(hostname) ? { address: hostname, family: isIP(hostname) } : resolved[0];
  }
  const lookupPinned: LookupFunction | undefined = pinned
    ? (_hostname, options, callback) => {
        if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
        else callback(null, pinned.address, pinned.family);
      }
    : undefined;
  const [payload, payloadType] =
    request.form !== undefined
      ? [Buffer.from(new URLSearchParams(request.form).toString()), 'application/x-www-form-urlencoded']
      : request.json !== undefined
        ? [Buffer.from(JSON.stringify(request.json)), request.jsonType ?? 'application/json']
        : [undefined, undefined];
  try {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = (url.protocol === 'https:' ? https : http).request(url, {
        method: request.method,
        headers: {
          accept: 'application/json',
          'user-agent': 'course-submission-api-lti',
          ...request.headers,
          ...(payload ? { 'content-type': payloadType, 'content-length': String(payload.length) } : {}),
        },
        ...(lookupPinned ? { lookup: lookupPinned } : {}),
        agent: false,
        signal: AbortSignal.timeout(PLATFORM_TIMEOUT_MS),
      });
      outgoing.on('response', resolve);
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
    return {
      status: response.statusCode ?? 0,
      contentType: response.headers['content-type'] ?? '',
      headers: headersOf(response),
      text: await readLimited(response, request.answerLimit ?? PLATFORM_ANSWER_LIMIT),
    };
  } catch (error) {
    if (error instanceof PlatformUnreachable) throw error;
    const name = (error as Error).name;
    throw new PlatformUnreachable(
      name === 'AbortError' || name === 'TimeoutError'
        ? `no answer within ${PLATFORM_TIMEOUT_MS / 1000} s`
        : describeConnectionError(error as NodeJS.ErrnoException),
    );
  }
}

function headersOf(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

async function readLimited(response: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      response.destroy();
      throw new PlatformUnreachable(`its answer is larger than ${Math.floor(limit / 1024)} KiB`, { retryable: false });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
