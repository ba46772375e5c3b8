/**
 * The local S3-compatible endpoint (`npm start`, the tests): s3rver stores the objects, behind a
 * thin HTTP layer that refuses what S3 refuses and s3rver does not check (s3rver accepts any
 * SigV4 signature and ignores a POST form's policy). Every request must be signed with the local
 * credentials (LOCAL_S3_CREDENTIALS): header and presigned-query signatures are verified, with
 * clock skew and expiry; a browser-based POST upload must carry a policy signed with them, not
 * expired, whose every condition the form meets (exact key or prefix, bucket, other fields, the
 * file's real size within `content-length-range`). What passes is handed to s3rver (a POST upload
 * as a plain PUT of the file); a refusal is S3's XML error, and nothing is stored.
 */
import { request as httpRequest, createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';
import { LOCAL_S3_CREDENTIALS } from '#shared/storage/objects.ts';
import {
  isProblem,
  parsePostForm,
  s3ErrorXml,
  verifyPostUpload,
  verifySignedRequest,
  type S3Problem,
  type SecretOf,
} from './s3-signatures.ts';

/** The largest request body the local endpoint reads (S3's own limit for one PUT or POST is 5 GB). */
const MAX_REQUEST_BYTES = 1024 * 1024 * 1024;

export interface LocalS3Endpoint {
  /** `http://127.0.0.1:<port>`: S3_ENDPOINT. */
  readonly url: string;
  /** The bucket it was started with (created if missing): SUBMISSIONS_BUCKET. */
  readonly bucket: string;
  close(): Promise<void>;
}

const secretOf: SecretOf = (accessKeyId) =>
  accessKeyId === LOCAL_S3_CREDENTIALS.accessKeyId ? LOCAL_S3_CREDENTIALS.secretAccessKey : undefined;

/** Starts the endpoint on a loopback port (`port`, or a free one), its objects kept in `directory`. */
export async function startS3Endpoint(options: { directory: string; bucket: string; port?: number }): Promise<LocalS3Endpoint> {
  const store = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: options.directory,
    silent: true,
    configureBuckets: [{ name: options.bucket }],
  });
  const inner = await store.run();
  const server = createServer((request, response) => {
    handle(request, response, inner.port).catch(() => {
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

function send(response: ServerResponse, refusal: S3Problem): void {
  response.writeHead(refusal.status, { 'content-type': 'application/xml' });
  response.end(s3ErrorXml(refusal));
}

async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function handle(request: IncomingMessage, response: ServerResponse, innerPort: number): Promise<void> {
  const body = await readBody(request);
  if (!body) {
    send(response, { status: 400, code: 'EntityTooLarge', message: 'Your proposed upload exceeds the maximum allowed size' });
    request.destroy();
    return;
  }
  const url = request.url ?? '/';
  const [path = '/', query] = url.split('?');
  const segments = path.split('/').slice(1);
  // A browser-based upload: POST to the bucket itself, no sub-resource.
  if (request.method === 'POST' && segments.length === 1 && segments[0] && query === undefined) {
    const form = parsePostForm(request.headers, body);
    if (!form) {
      send(response, {
        status: 400,
        code: 'MalformedPOSTRequest',
        message: 'The body of your POST request is not well-formed multipart/form-data.',
      });
      return;
    }
    const bucket = decodeURIComponent(segments[0]);
    const accepted = verifyPostUpload(form, bucket, secretOf);
    if (isProblem(accepted)) {
      send(response, accepted);
      return;
    }
    const objectPath = `/${encodeURIComponent(bucket)}/${accepted.key.split('/').map(encodeURIComponent).join('/')}`;
    const stored = await forward(
      innerPort,
      'PUT',
      objectPath,
      { ...accepted.headers, 'content-length': String(accepted.body.length) },
      accepted.body,
    );
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
  if (request.method !== 'OPTIONS') {
    const verdict = verifySignedRequest({ method: request.method ?? 'GET', url, headers: request.headers, body }, secretOf);
    if (isProblem(verdict)) {
      send(response, verdict);
      return;
    }
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'host' || name === 'connection' || name === 'transfer-encoding' || name === 'content-length')
      continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  headers['content-length'] = String(body.length);
  const answer = await forward(innerPort, request.method ?? 'GET', url, headers, body);
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
