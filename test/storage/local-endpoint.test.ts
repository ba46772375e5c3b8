import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { runAsFunction } from '#shared/environment.ts';
import { newFilesId, newUploadId, uploadKey, uploadName, versionFilesKey, versionFilesPrefix } from '#shared/storage/keys.ts';
import {
  copyObject,
  deleteObjects,
  getObjectBytes,
  headObject,
  listObjects,
  presignDownload,
  presignUpload,
  putObject,
  type PresignedUpload,
} from '#shared/storage/objects.ts';

// Keys of this file alone: a term no other file uses.
const folder = { term: `t${randomUUID().slice(0, 8)}`, course: 'csci1100', gradeable: 'hw1', submitter: 'student' };
const freshKey = () => uploadKey(folder, newUploadId('main.cpp'));

/** Sends a presigned POST as a browser would: the fields, then the file last. */
async function post(upload: PresignedUpload, file: Buffer, change: (form: FormData) => void = () => undefined): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(upload.fields)) form.append(name, value);
  change(form);
  form.append('file', new Blob([new Uint8Array(file)]), 'main.cpp');
  return s3Fetch(upload.url, { method: 'POST', body: form });
}

/** S3 itself, not the API: its answers have no contract to check. */
// eslint-disable-next-line no-restricted-globals -- the local S3 endpoint, not the API
const s3Fetch = (url: string, init?: RequestInit): Promise<Response> => fetch(url, init);

const code = async (answer: Response) => /<Code>([^<]+)<\/Code>/.exec(await answer.text())?.[1];

/**
 * Sends a request's beginning and never its end, as a client in the middle of a large upload:
 * resolves with the answer the endpoint gives meanwhile (its status and S3 error code).
 */
function answerWhileSending(url: string, method: string, headers: OutgoingHttpHeaders, chunks: readonly Buffer[]) {
  return new Promise<{ status: number; code: string | undefined }>((resolve, reject) => {
    const target = new URL(url);
    // A connection kept alive: with `Connection: close` the endpoint ends it right after its answer,
    // and the rest still being written could fail (EPIPE) before that answer is read.
    const agent = new Agent({ keepAlive: true });
    const outgoing = httpRequest(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method, headers, agent },
      (incoming) => {
        const parts: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => parts.push(chunk));
        incoming.on('end', () => {
          resolve({ status: incoming.statusCode ?? 0, code: /<Code>([^<]+)<\/Code>/.exec(Buffer.concat(parts).toString())?.[1] });
          outgoing.destroy();
          agent.destroy();
        });
      },
    );
    outgoing.on('error', (error) => {
      agent.destroy();
      reject(error);
    });
    for (const chunk of chunks) outgoing.write(chunk);
  });
}

/** A presigned POST's fields and the start of its file part, as a browser sends them, with the boundary's Content-Type. */
function formHead(upload: PresignedUpload, change: (fields: Record<string, string>) => void = () => undefined) {
  const boundary = `----form${randomUUID()}`;
  const fields = { ...upload.fields };
  change(fields);
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  const file = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="main.cpp"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  return { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, head: Buffer.from(parts.join('') + file) };
}

describe('presigned POST uploads to the local S3 endpoint', () => {
  it('stores a file sent within the policy, exactly at its key', async () => {
    const key = freshKey();
    const upload = await presignUpload(key, { maxBytes: 1000, expiresSeconds: 300 });
    expect(upload.url).toBe(`${process.env.S3_ENDPOINT}/${process.env.SUBMISSIONS_BUCKET}`);
    const bytes = Buffer.from('int main() { return 0; }\n');
    const answer = await post(upload, bytes);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
    expect(await headObject(key)).toEqual({ size: bytes.length });
    expect(await getObjectBytes(key)).toEqual(bytes);
  });

  it('accepts a file of exactly the most bytes, and an empty one', async () => {
    const [full, empty] = [freshKey(), freshKey()];
    expect((await post(await presignUpload(full, { maxBytes: 64, expiresSeconds: 300 }), Buffer.alloc(64, 1))).status).toBe(204);
    expect((await post(await presignUpload(empty, { maxBytes: 64, expiresSeconds: 300 }), Buffer.alloc(0))).status).toBe(204);
    expect(await headObject(full)).toEqual({ size: 64 });
    expect(await headObject(empty)).toEqual({ size: 0 });
  });

  it('refuses a file larger than the policy’s content-length-range, storing nothing', async () => {
    const key = freshKey();
    const answer = await post(await presignUpload(key, { maxBytes: 64, expiresSeconds: 300 }), Buffer.alloc(65, 1));
    expect(answer.status).toBe(400);
    expect(await code(answer)).toBe('EntityTooLarge');
    expect(await headObject(key)).toBeUndefined();
  });

  it('refuses another key than the one signed, storing neither', async () => {
    const key = freshKey();
    const other = freshKey();
    const answer = await post(await presignUpload(key, { maxBytes: 64, expiresSeconds: 300 }), Buffer.from('x'), (form) =>
      form.set('key', other),
    );
    expect(answer.status).toBe(403);
    expect(await code(answer)).toBe('AccessDenied');
    expect(await headObject(key)).toBeUndefined();
    expect(await headObject(other)).toBeUndefined();
  });

  it('refuses an expired policy', async () => {
    const key = freshKey();
    const answer = await post(await presignUpload(key, { maxBytes: 64, expiresSeconds: -60 }), Buffer.from('x'));
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain('Policy expired');
    expect(await headObject(key)).toBeUndefined();
  });

  it('refuses an altered signature, an altered policy and a field no condition covers', async () => {
    const key = freshKey();
    const upload = await presignUpload(key, { maxBytes: 64, expiresSeconds: 300 });
    const signature = upload.fields['X-Amz-Signature']!;
    const altered = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
    const bad = await post(upload, Buffer.from('x'), (form) => form.set('X-Amz-Signature', altered));
    expect([bad.status, await code(bad)]).toEqual([403, 'SignatureDoesNotMatch']);

    // A larger size range in the policy, with the signature of the original.
    const policy = JSON.parse(Buffer.from(upload.fields.Policy!, 'base64').toString()) as { conditions: unknown[] };
    policy.conditions = policy.conditions.map((condition) =>
      Array.isArray(condition) && condition[0] === 'content-length-range' ? ['content-length-range', 0, 10_000] : condition,
    );
    const widened = await post(upload, Buffer.alloc(100), (form) =>
      form.set('Policy', Buffer.from(JSON.stringify(policy)).toString('base64')),
    );
    expect([widened.status, await code(widened)]).toEqual([403, 'SignatureDoesNotMatch']);

    const extra = await post(upload, Buffer.from('x'), (form) => form.set('x-amz-meta-owner', 'someone'));
    expect(extra.status).toBe(403);
    expect(await extra.text()).toContain('Extra input fields: x-amz-meta-owner');
    expect(await headObject(key)).toBeUndefined();
  });

  it('holds the form to its Content-Type when one was signed', async () => {
    const key = freshKey();
    const upload = await presignUpload(key, { maxBytes: 64, expiresSeconds: 300, contentType: 'application/zip' });
    const other = await post(upload, Buffer.from('x'), (form) => form.set('Content-Type', 'text/html'));
    expect([other.status, await code(other)]).toEqual([403, 'AccessDenied']);
    expect(await headObject(key)).toBeUndefined();
    expect((await post(upload, Buffer.from('PK'))).status).toBe(204);
  });

  it('refuses a policy signed with other credentials', async () => {
    const key = freshKey();
    const upload = await presignUpload(key, { maxBytes: 64, expiresSeconds: 300 });
    const credential = upload.fields['X-Amz-Credential']!.replace(/^[^/]+/, 'AKIAOTHER');
    const answer = await post(upload, Buffer.from('x'), (form) => form.set('X-Amz-Credential', credential));
    expect([answer.status, await code(answer)]).toEqual([403, 'InvalidAccessKeyId']);
  });
});

describe('presigned GET and signed requests on the local S3 endpoint', () => {
  it('refuses a forged policy, or a file past the policy’s size, while the file is still being sent, storing nothing', async () => {
    const key = freshKey();
    const upload = await presignUpload(key, { maxBytes: 1024, expiresSeconds: 300 });
    const megabyte = Buffer.alloc(1024 * 1024, 1);
    const forged = formHead(upload, (fields) => (fields['X-Amz-Signature'] = '0'.repeat(64)));
    // A gigabyte announced, a megabyte sent, never the end: answered on the fields alone.
    expect(
      await answerWhileSending(upload.url, 'POST', { ...forged.headers, 'content-length': String(1024 ** 3) }, [forged.head, megabyte]),
    ).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    // Within the policy, but past its 1 KiB: refused once that much more than the fields was read.
    const honest = formHead(upload);
    expect(await answerWhileSending(upload.url, 'POST', honest.headers, [honest.head, megabyte])).toEqual({
      status: 400,
      code: 'EntityTooLarge',
    });
    expect(await headObject(key)).toBeUndefined();
  });

  it('refuses fields before the file that never end, and an unsigned PUT, before reading their bodies', async () => {
    const upload = await presignUpload(freshKey(), { maxBytes: 1024, expiresSeconds: 300 });
    const { headers, head } = formHead(upload);
    const endless = Buffer.concat([head.subarray(0, head.indexOf('--', 10)), Buffer.from(`--x\r\n${'x'.repeat(100 * 1024)}`)]);
    expect(await answerWhileSending(upload.url, 'POST', headers, [endless])).toEqual({
      status: 400,
      code: 'MaxPostPreDataLengthExceeded',
    });
    const key = freshKey();
    expect(
      await answerWhileSending(`${upload.url}/${key}`, 'PUT', { 'content-length': String(1024 ** 3) }, [Buffer.alloc(1024 * 1024)]),
    ).toEqual({ status: 403, code: 'AccessDenied' });
    expect(await headObject(key)).toBeUndefined();
  });

  it('downloads through a presigned GET, as an attachment with the file’s name, until it expires', async () => {
    const key = versionFilesKey(folder, newFilesId(), 'main.cpp');
    await putObject(key, 'int main() {}\n');
    const url = await presignDownload(key, { expiresSeconds: 300, fileName: 'main.cpp' });
    const answer = await s3Fetch(url);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('int main() {}\n');
    expect(answer.headers.get('content-disposition')).toBe(`attachment; filename="main.cpp"; filename*=UTF-8''main.cpp`);

    const short = await presignDownload(key, { expiresSeconds: 1, fileName: 'main.cpp' });
    const signedAt = Date.parse(
      new URL(short).searchParams.get('X-Amz-Date')!.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
    );
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, signedAt + 2_500 - Date.now())));
    const expired = await s3Fetch(short);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('Request has expired');
  });

  it('refuses an unsigned request, and a presigned GET moved to another key', async () => {
    const filesId = newFilesId();
    const key = versionFilesKey(folder, filesId, 'secret.txt');
    await putObject(key, 'secret');
    const unsigned = await s3Fetch(`${process.env.S3_ENDPOINT}/${process.env.SUBMISSIONS_BUCKET}/${key}`);
    expect([unsigned.status, await code(unsigned)]).toEqual([403, 'AccessDenied']);
    const other = versionFilesKey(folder, filesId, 'other.txt');
    await putObject(other, 'other');
    const moved = (await presignDownload(other, { expiresSeconds: 300, fileName: 'other.txt' })).replace('other.txt?', 'secret.txt?');
    const answer = await s3Fetch(moved);
    expect([answer.status, await code(answer)]).toEqual([403, 'SignatureDoesNotMatch']);
  });
});

describe('the storage module’s object operations', () => {
  it('puts, heads, copies, lists and deletes objects', async () => {
    const filesId = newFilesId();
    const prefix = versionFilesPrefix(folder, filesId);
    const [a, b] = [versionFilesKey(folder, filesId, 'a.txt'), versionFilesKey(folder, filesId, 'b c.txt')];
    await putObject(a, Buffer.from('alpha'));
    await copyObject(a, b);
    expect(await getObjectBytes(b)).toEqual(Buffer.from('alpha'));
    expect(await listObjects(prefix)).toEqual([
      { key: a, size: 5 },
      { key: b, size: 5 },
    ]);
    expect(await headObject(versionFilesKey(folder, filesId, 'missing'))).toBeUndefined();
    expect(await getObjectBytes(versionFilesKey(folder, filesId, 'missing'))).toBeUndefined();
    await expect(getObjectBytes(a, 4)).rejects.toThrow(/larger than 4 bytes/);
    await deleteObjects([a, b, versionFilesKey(folder, filesId, 'missing')]);
    expect(await listObjects(prefix)).toEqual([]);
  });

  it('carries the declared name in the upload id, and only an exact one', () => {
    const id = newUploadId('lab 1 – ü.cpp');
    expect(uploadName(id)).toBe('lab 1 – ü.cpp');
    expect(uploadName(`${id}=`)).toBeUndefined();
    expect(uploadName('not-an-id.bWFpbi5jcHA')).toBeUndefined();
    expect(() => uploadKey(folder, '../x')).toThrow(/Not a key segment/);
    expect(() => versionFilesKey(folder, newFilesId(), 'a/b')).toThrow(/Not a key segment/);
  });

  it('refuses, locally, an action the running function was not granted', async () => {
    const scope = {
      functionName: 'test',
      variables: { SUBMISSIONS_BUCKET: process.env.SUBMISSIONS_BUCKET! },
      resourceVariables: new Set(['SUBMISSIONS_BUCKET']),
      dataGrants: new Map(),
      objectGrants: [{ prefix: 'uploads/', actions: new Set(['PutObject']) }],
    };
    await runAsFunction(scope, async () => {
      await expect(presignUpload(freshKey(), { maxBytes: 1, expiresSeconds: 60 })).resolves.toHaveProperty('url');
      await expect(headObject(freshKey())).rejects.toThrow(/not authorized to perform: s3:GetObject/);
      await expect(putObject(versionFilesKey(folder, newFilesId(), 'x'), 'x')).rejects.toThrow(/not authorized to perform: s3:PutObject/);
    });
  });
});
