import { lookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { CheckoutError } from './error.ts';
import { formatBytes } from './files.ts';
import { PackMeter } from './pack.ts';
import { classifyAddress, describeKind, isAllowedHost, isRefusedKind } from '#shared/network/addresses.ts';

export { CheckoutError } from './error.ts';

const MAX_REDIRECTS = 5;
const SOCKET_IDLE_MS = 30_000;
/** How long a connection is kept open between requests; servers commonly close theirs after 5 s. */
const POOL_IDLE_MS = 4_000;
/** Connections per checked address: open at once, and kept idle. */
const POOL_MAX_SOCKETS = 32;
const POOL_MAX_FREE_SOCKETS = 8;
/** Checked addresses whose connections are kept (least recently used dropped first). */
const POOL_MAX_AGENTS = 16;

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

/**
 * Keep-alive connections, one agent per checked (scheme, host name, address, port): a connection is
 * reused only for a request that would have connected to that very address, with that TLS server
 * name, after its own check, so pooling never lets a request reach an address it was not checked
 * for (a host that now resolves elsewhere gets another agent, and a refused one is stopped before).
 * Saves a connection (a TLS handshake) per repository read from the same server.
 */
const agents = new Map<string, http.Agent>();

function agentFor(url: URL, target: CheckedAddress): http.Agent {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const key = [url.protocol, url.hostname, target.address, target.family, port].join(' ');
  const known = agents.get(key);
  if (known) {
    agents.delete(key);
    agents.set(key, known);
    return known;
  }
  const options = { keepAlive: true, maxSockets: POOL_MAX_SOCKETS, maxFreeSockets: POOL_MAX_FREE_SOCKETS, timeout: POOL_IDLE_MS };
  const agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  agents.set(key, agent);
  for (const [oldest, evicted] of agents) {
    if (agents.size <= POOL_MAX_AGENTS) break;
    agents.delete(oldest);
    // Requests under way finish; no connection of this agent is kept afterwards.
    evicted.keepSocketAlive = () => false;
    for (const sockets of Object.values(evicted.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  }
  return agent;
}

/** Closes every kept connection (tests; a process that ends closes them anyway). */
export function closeConnections(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
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
 * it, and kept connections are pooled by that address), re-checks every redirect, and stops once
 * the responses exceed `maxBytes`.
 */
export function guardedHttp(options: GuardedHttpOptions): HttpClient & {
  readonly received: () => number;
  readonly failure: () => CheckoutError | undefined;
  /** Cuts the responses not read to their end (call once done), so their connections are not held. */
  readonly release: () => void;
} {
  const client = new GuardedClient(options);
  return {
    request: (request) => client.request(request),
    received: () => client.received,
    failure: () => client.failure,
    release: () => client.release(),
  };
}

/** The state of one guardedHttp client: the bytes received, its first failure, the responses handed out. */
class GuardedClient {
  private readonly options: GuardedHttpOptions;
  /** Response bytes read so far, over every request. */
  received = 0;
  /** The first refusal or limit met, which the checkout reports rather than the error isomorphic-git makes of it. */
  failure: CheckoutError | undefined;
  /** Responses handed out; `release` cuts those never read to their end, so their connections are not held. */
  private readonly open = new Set<IncomingMessage>();

  constructor(options: GuardedHttpOptions) {
    this.options = options;
  }

  async request(request: GitHttpRequest): Promise<GitHttpResponse> {
    const { options } = this;
    const method = request.method ?? 'GET';
    const body = await collect(request.body);
    let url = new URL(request.url);
    const packResponse = method === 'POST' && url.pathname.endsWith('/git-upload-pack');
    const meter = () =>
      options.maxInflatedBytes === undefined ? undefined : new PackMeter(options.maxInflatedBytes, () => this.tooLarge());
    let currentMethod = method;
    let currentBody = body;
    for (let hop = 0; ; hop += 1) {
      const target = await checkUrlAddress(url, options.allowedHosts, options.resolve).catch((error: unknown) => {
        throw error instanceof CheckoutError ? this.fail(error) : error;
      });
      const response = await this.send(url, target, currentMethod, request.headers ?? {}, currentBody);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if ([301, 302, 303, 307, 308].includes(status) && location) {
        response.resume();
        if (hop >= MAX_REDIRECTS) this.fail(new CheckoutError('the server redirected too many times'));
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
        body: this.counted(response, packResponse ? meter() : undefined),
      };
    }
  }

  release(): void {
    for (const response of this.open) if (!response.complete) response.destroy();
    this.open.clear();
  }

  private fail(error: CheckoutError): never {
    this.failure ??= error;
    throw error;
  }

  private tooLarge(): CheckoutError {
    return new CheckoutError(`the repository is larger than the limit of ${formatBytes(this.options.maxBytes)}`);
  }

  private send(
    url: URL,
    target: CheckedAddress,
    method: string,
    headers: Record<string, string>,
    body: Buffer | undefined,
    pooled = true,
  ): Promise<IncomingMessage> {
    const { options } = this;
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
        agent: pooled ? agentFor(url, target) : false,
        signal: options.signal,
        timeout: SOCKET_IDLE_MS,
      });
      request.on('timeout', () => request.destroy(new CheckoutError('the server stopped answering')));
      let answered = false;
      request.on('response', (response) => {
        answered = true;
        this.open.add(response);
        response.once('close', () => this.open.delete(response));
        resolve(response);
      });
      request.on('error', (error) => {
        // A kept connection the server closed meanwhile fails before any answer: once more on a new one.
        if (request.reusedSocket && !answered && !(error instanceof CheckoutError) && !options.signal?.aborted)
          this.send(url, target, method, headers, body, false).then(resolve, reject);
        else reject(error);
      });
      request.end(body);
    });
  }

  private async *counted(response: IncomingMessage, meter: PackMeter | undefined): AsyncIterableIterator<Uint8Array> {
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        this.received += chunk.length;
        if (this.received > this.options.maxBytes) {
          response.destroy();
          this.fail(this.tooLarge());
        }
        // Counted before isomorphic-git sees it: it inflates each object whole while indexing the pack.
        if (meter)
          await meter.write(chunk).catch((error: unknown) => {
            response.destroy();
            throw error instanceof CheckoutError ? this.fail(error) : error;
          });
        yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
      }
    } finally {
      meter?.close();
    }
  }
}
