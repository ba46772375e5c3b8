import { lookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { CheckoutError } from './checkout-error.ts';
import { formatBytes } from './checkout-files.ts';
import { PackMeter } from './checkout-pack.ts';
import { classifyAddress, describeKind, isAllowedHost, isRefusedKind } from '#shared/network/addresses.ts';

export { CheckoutError } from './checkout-error.ts';

const MAX_REDIRECTS = 5;
const SOCKET_IDLE_MS = 30_000;

export interface GuardedHttpOptions {
  readonly allowedHosts: readonly string[];
  /** Response bytes allowed over the whole checkout. */
  readonly maxBytes: number;
  /**
   * What the objects of a fetched pack may add up to once inflated (PackMeter); the response is
   * cut as soon as they pass it, saying the repository is larger than `maxBytes`. Unlimited when absent.
   */
  readonly maxInflatedBytes?: number;
  readonly signal?: AbortSignal;
  /** Host name lookup (tests); node:dns lookup with all addresses by default. */
  readonly resolve?: Resolve;
}

export interface CheckedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

export type Resolve = (hostname: string) => Promise<readonly { address: string; family: number }[]>;
const resolveAll: Resolve = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * The address to connect to for `url`: every address the host resolves to must be public, unless
 * the host (or host:port) is in `allowedHosts`. IP literals are judged without any lookup, so
 * refused literals fail before any traffic. Throws CheckoutError.
 */
export async function checkUrlAddress(url: URL, allowedHosts: readonly string[], resolve: Resolve = resolveAll): Promise<CheckedAddress> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CheckoutError(`only http and https addresses can be fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new CheckoutError('repository addresses may not contain a user name or password');
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const allowed = isAllowedHost(url, allowedHosts);
  let addresses: readonly { address: string; family: number }[];
  if (isIP(hostname)) {
    addresses = [{ address: hostname, family: isIP(hostname) }];
  } else {
    try {
      addresses = await resolve(hostname);
    } catch {
      throw new CheckoutError(`the host ${hostname} could not be found`);
    }
  }
  const [first] = addresses;
  if (!first) throw new CheckoutError(`the host ${hostname} could not be found`);
  if (!allowed) {
    for (const { address } of addresses) {
      const kind = classifyAddress(address);
      if (isRefusedKind(kind)) {
        const shown = address === hostname ? `the address ${address}` : `the host ${hostname} has the address ${address}, which`;
        throw new CheckoutError(`${shown} is ${describeKind(kind)}; repositories cannot be fetched from such addresses`);
      }
    }
  }
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

async function collect(body: GitHttpRequest['body']): Promise<Buffer | undefined> {
  if (!body) return undefined;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/**
 * An isomorphic-git HTTP client that connects only to addresses checked by checkUrlAddress (the
 * checked address is handed to the socket through `lookup`, so a second DNS answer cannot swap
 * it), re-checks every redirect, and stops once the responses exceed `maxBytes`.
 */
export function guardedHttp(
  options: GuardedHttpOptions,
): HttpClient & { readonly received: () => number; readonly failure: () => CheckoutError | undefined } {
  let received = 0;
  let failure: CheckoutError | undefined;
  const fail = (error: CheckoutError): never => {
    failure ??= error;
    throw error;
  };

  function send(url: URL, target: CheckedAddress, method: string, headers: Record<string, string>, body: Buffer | undefined) {
    const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
      if (lookupOptions.all) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };
    const requestHeaders: Record<string, string> = { ...headers };
    if (body) requestHeaders['content-length'] = String(body.length);
    return new Promise<IncomingMessage>((resolve, reject) => {
      const transport = url.protocol === 'https:' ? https : http;
      const request = transport.request(url, {
        method,
        headers: requestHeaders,
        lookup: pinned,
        agent: false,
        signal: options.signal,
        timeout: SOCKET_IDLE_MS,
      });
      request.on('timeout', () => request.destroy(new CheckoutError('the server stopped answering')));
      request.on('response', resolve);
      request.on('error', reject);
      request.end(body);
    });
  }

  const tooLarge = () => new CheckoutError(`the repository is larger than the limit of ${formatBytes(options.maxBytes)}`);

  async function* counted(response: IncomingMessage, meter: PackMeter | undefined): AsyncIterableIterator<Uint8Array> {
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > options.maxBytes) {
          response.destroy();
          fail(tooLarge());
        }
        // Counted before isomorphic-git sees it: it inflates each object whole while indexing the pack.
        if (meter)
          await meter.write(chunk).catch((error: unknown) => {
            response.destroy();
            throw error instanceof CheckoutError ? fail(error) : error;
          });
        yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
      }
    } finally {
      meter?.close();
    }
  }

  async function request(request: GitHttpRequest): Promise<GitHttpResponse> {
    const method = request.method ?? 'GET';
    const body = await collect(request.body);
    let url = new URL(request.url);
    const packResponse = method === 'POST' && url.pathname.endsWith('/git-upload-pack');
    const meter = () => (options.maxInflatedBytes === undefined ? undefined : new PackMeter(options.maxInflatedBytes, tooLarge));
    let currentMethod = method;
    let currentBody = body;
    for (let hop = 0; ; hop += 1) {
      const target = await checkUrlAddress(url, options.allowedHosts, options.resolve).catch((error: unknown) => {
        throw error instanceof CheckoutError ? fail(error) : error;
      });
      const response = await send(url, target, currentMethod, request.headers ?? {}, currentBody);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if ([301, 302, 303, 307, 308].includes(status) && location) {
        response.resume();
        if (hop >= MAX_REDIRECTS) fail(new CheckoutError('the server redirected too many times'));
        url = new URL(location, url);
        if (status === 303) {
          currentMethod = 'GET';
          currentBody = undefined;
        }
        continue;
      }
      return {
        url: url.href,
        method: currentMethod,
        statusCode: status,
        statusMessage: response.statusMessage ?? '',
        headers: flattenHeaders(response.headers),
        body: counted(response, packResponse ? meter() : undefined),
      };
    }
  }

  return { request, received: () => received, failure: () => failure };
}
