/**
 * The local S3-compatible endpoint (`npm start`, the tests): s3rver stores the objects, behind a
 * thin HTTP layer that refuses what S3 refuses and s3rver does not check (s3rver accepts any
 * SigV4 signature and ignores a POST form's policy). Every request must be signed with the local
 * credentials (LOCAL_S3_CREDENTIALS): header and presigned-query signatures are verified, with
 * clock skew and expiry; a browser-based POST upload must carry a policy signed with them, not
 * expired, whose every condition the form meets (exact key or prefix, bucket, other fields, the
 * file's real size within `content-length-range`). The signature, or the policy with the fields
 * before the file, is checked before the rest of the body is read, and the body is read only as far
 * as it may go. What passes is handed to s3rver (a POST upload as a plain PUT of the file); a
 * refusal is S3's XML error, and nothing is stored. CORS is the bucket's rule in AWS
 * (infra/cors.ts), for the origins it is started with: S3 answers a preflight itself.
 */
import { request as httpRequest, createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';
import { LOCAL_S3_CREDENTIALS } from '#shared/storage/objects.ts';
import { bucketCorsRules, corsAnswer, type CorsRules } from '#infra/cors.ts';
import {
  isProblem,
  parsePostFormHead,
  payloadProblem,
  s3ErrorXml,
  sizeProblem,
  verifyPostPolicy,
  verifySignedRequest,
  type S3Problem,
  type SecretOf,
} from './s3-signatures.ts';

/** The largest request body the local endpoint reads (S3's own limit for one PUT or POST is 5 GB). */
const MAX_REQUEST_BYTES = 1024 * 1024 * 1024;
/**
 * The most a POST form may hold before its file's content (S3 takes 20 KB of policy and fields;
 * this leaves room for the parts' headers), and after it (the closing boundary; S3 ignores the rest).
 */
const MAX_FORM_FIELDS_BYTES = 64 * 1024;

export interface LocalS3Endpoint {
  /** `http://127.0.0.1:<port>`: S3_ENDPOINT. */
  readonly url: string;
  /** The bucket it was started with (created if missing): SUBMISSIONS_BUCKET. */
  readonly bucket: string;
  close(): Promise<void>;
}

const secretOf: SecretOf = (accessKeyId) =>
  accessKeyId === LOCAL_S3_CREDENTIALS.accessKeyId ? LOCAL_S3_CREDENTIALS.secretAccessKey : undefined;

/**
 * Starts the endpoint on a loopback port (`port`, or a free one), its objects kept in `directory`;
 * `corsOrigins`: the browser origins whose pages may post to it (none: no CORS, as a bucket without a CORS rule).
 */
export async function startS3Endpoint(options: {
  directory: string;
  bucket: string;
  port?: number;
  corsOrigins?: readonly string[];
}): Promise<LocalS3Endpoint> {
  const cors = bucketCorsRules(options.corsOrigins ?? []);
  const store = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: options.directory,
    silent: true,
    configureBuckets: [{ name: options.bucket }],
  });
  const inner = await store.run();
  const server = createServer((request, response) => {
    withCors(cors, request, response, () => handle(request, response, inner.port)).catch(() => {
      if (!response.headersSent)
        send(response, { status: 500, code: 'InternalError', message: 'We encountered an internal error. Please try again.' });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    bucket: options.bucket,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    },
  };
}

/**
 * S3's CORS: a preflight is answered by the bucket's rule (403 when it allows no such request, or
 * when there is none); any other request from an allowed origin gets the CORS headers on its
 * answer, whatever answers it.
 */
async function withCors(rules: CorsRules, request: IncomingMessage, response: ServerResponse, answer: () => Promise<void>): Promise<void> {
  const preflight = request.method === 'OPTIONS';
  const cors = corsAnswer(rules, {
    method: request.method ?? 'GET',
    origin: request.headers.origin,
    requestMethod: request.headers['access-control-request-method'],
    requestHeaders: request.headers['access-control-request-headers'],
  });
  if (preflight) {
    request.resume();
    if (cors.kind === 'preflight' && cors.allowed) {
      response.writeHead(200, cors.headers);
      response.end();
      return;
    }
    const message =
      rules.origins.length === 0 ? 'CORSResponse: CORS is not enabled for this bucket.' : 'CORSResponse: This CORS request is not allowed.';
    return send(response, { status: 403, code: 'AccessForbidden', message });
  }
  if (cors.kind === 'actual') for (const [name, value] of Object.entries(cors.headers)) response.setHeader(name, value);
  await answer();
}

function send(response: ServerResponse, refusal: S3Problem): void {
  response.writeHead(refusal.status, { 'content-type': 'application/xml' });
  response.end(s3ErrorXml(refusal));
}

/** What a refused request may still send, read and thrown away, before its connection is cut. */
const MAX_DISCARDED_BYTES = 16 * 1024 * 1024;

/**
 * A refusal before the body was read: answered at once, and the rest of the body thrown away as
 * it comes (so that a client still sending reads the answer), the connection cut after
 * MAX_DISCARDED_BYTES.
 */
function refuseUnread(request: IncomingMessage, response: ServerResponse, refusal: S3Problem): void {
  send(response, refusal);
  let discarded = 0;
  request.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > MAX_DISCARDED_BYTES) request.socket.destroy();
  });
  request.resume();
}

const TOO_LARGE: S3Problem = { status: 400, code: 'EntityTooLarge', message: 'Your proposed upload exceeds the maximum allowed size' };
const MALFORMED_POST: S3Problem = {
  status: 400,
  code: 'MalformedPOSTRequest',
  message: 'The body of your POST request is not well-formed multipart/form-data.',
};

/** A request's body, read a step at a time: never more than its checks have let through so far. */
class BodyReader {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private done = false;
  private readonly iterator: AsyncIterator<Buffer>;

  constructor(request: IncomingMessage) {
    this.iterator = (request as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  }

  /** What was read so far. */
  get read(): Buffer {
    if (this.chunks.length > 1) this.chunks.splice(0, this.chunks.length, Buffer.concat(this.chunks, this.size));
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  get bytes(): number {
    return this.size;
  }

  /** Reads the next chunk; false at the body's end. */
  async more(): Promise<boolean> {
    if (this.done) return false;
    const next = await this.iterator.next();
    if (next.done) {
      this.done = true;
      return false;
    }
    this.chunks.push(next.value);
    this.size += next.value.length;
    return true;
  }

  /** The whole body, or undefined as soon as it passes `limit` bytes. */
  async all(limit: number): Promise<Buffer | undefined> {
    if (this.size > limit) return undefined;
    while (await this.more()) if (this.size > limit) return undefined;
    return this.read;
  }
}

async function handle(request: IncomingMessage, response: ServerResponse, innerPort: number): Promise<void> {
  const url = request.url ?? '/';
  const [path = '/', query] = url.split('?');
  const segments = path.split('/').slice(1);
  const body = new BodyReader(request);
  // A browser-based upload: POST to the bucket itself, no sub-resource.
  if (request.method === 'POST' && segments.length === 1 && segments[0] && query === undefined) {
    // The fields up to the file, the policy among them, are checked before the file is read.
    let head = parsePostFormHead(request.headers, body.read);
    while (head === 'incomplete') {
      if (body.bytes > MAX_FORM_FIELDS_BYTES)
        return refuseUnread(request, response, {
          status: 400,
          code: 'MaxPostPreDataLengthExceeded',
          message: 'Your POST request fields preceding the upload file were too large.',
        });
      if (!(await body.more())) return refuseUnread(request, response, MALFORMED_POST);
      head = parsePostFormHead(request.headers, body.read);
    }
    if (head === undefined) return refuseUnread(request, response, MALFORMED_POST);
    const bucket = decodeURIComponent(segments[0]);
    const accepted = verifyPostPolicy(head.fields, head.file?.fileName, bucket, secretOf);
    if (isProblem(accepted)) return refuseUnread(request, response, accepted);
    const start = head.file?.start ?? 0;
    const form = await body.all(start + (accepted.range?.max ?? MAX_REQUEST_BYTES) + MAX_FORM_FIELDS_BYTES);
    if (!form) return refuseUnread(request, response, TOO_LARGE);
    const end = form.indexOf(head.delimiter, start);
    if (end < 0) return send(response, MALFORMED_POST);
    const file = form.subarray(start, end);
    const wrongSize = sizeProblem(accepted.range, file.length);
    if (wrongSize) return send(response, wrongSize);
    const objectPath = `/${encodeURIComponent(bucket)}/${accepted.key.split('/').map(encodeURIComponent).join('/')}`;
    const stored = await forward(innerPort, 'PUT', objectPath, { ...accepted.headers, 'content-length': String(file.length) }, file);
    if (stored.status !== 200) {
      response.writeHead(stored.status, stored.headers);
      response.end(stored.body);
      return;
    }
    const location = `http://${request.headers.host ?? '127.0.0.1'}${objectPath}`;
    const etag = String(stored.headers.etag ?? '');
    response.writeHead(accepted.status, { etag, location, ...(accepted.status === 201 ? { 'content-type': 'application/xml' } : {}) });
    response.end(
      accepted.status === 201
        ? `<?xml version="1.0" encoding="UTF-8"?>\n<PostResponse><Location>${location}</Location><Bucket>${bucket}</Bucket><Key>${accepted.key}</Key><ETag>${etag}</ETag></PostResponse>`
        : undefined,
    );
    return;
  }
  // The signature covers the declared payload hash, not the body: checked before the body is read.
  const verdict = verifySignedRequest({ method: request.method ?? 'GET', url, headers: request.headers }, secretOf);
  if (isProblem(verdict)) return refuseUnread(request, response, verdict);
  if (Number(request.headers['content-length'] ?? 0) > MAX_REQUEST_BYTES) return refuseUnread(request, response, TOO_LARGE);
  const content = await body.all(MAX_REQUEST_BYTES);
  if (!content) return refuseUnread(request, response, TOO_LARGE);
  const payload = payloadProblem(request.headers, content);
  if (payload) return send(response, payload);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'host' || name === 'connection' || name === 'transfer-encoding' || name === 'content-length')
      continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  headers['content-length'] = String(content.length);
  const answer = await forward(innerPort, request.method ?? 'GET', url, headers, content);
  response.writeHead(answer.status, answer.headers);
  response.end(answer.body);
}

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** One request to s3rver, answered in full. */
function forward(port: number, method: string, path: string, headers: Record<string, string>, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const { connection: _connection, 'transfer-encoding': _encoding, ...rest } = answer.headers;
        resolve({ status: answer.statusCode ?? 500, headers: rest, body: Buffer.concat(chunks) });
      });
      answer.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
