/**
 * The submissions bucket: presigned uploads and downloads, and the few object operations the
 * functions use. One code path for AWS and local: the SDK's S3 client, which `S3_ENDPOINT` points
 * at the local S3-compatible endpoint (path-style, the local endpoint's credentials); unset, it is
 * AWS's S3 with the function's role. The bucket is the function's resource variable
 * `SUBMISSIONS_BUCKET`, set only on functions whose definition declares `objects`.
 *
 * Locally, each call is checked against the running function's object grants (as the data layer
 * checks its DynamoDB grants), so an action missing from a definition fails locally as in AWS.
 */
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { config } from '#shared/config.ts';
import { currentScope, describeRunningFunction, setting } from '#shared/environment.ts';
import { companionModule } from '#shared/companion.ts';

/** The resource variable naming the submissions bucket. */
export const SUBMISSIONS_BUCKET_VARIABLE = 'SUBMISSIONS_BUCKET';

/** The credentials the local endpoint accepts (it checks every signature with them); never AWS's. */
export const LOCAL_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;
/** The region signatures name locally, unless AWS_REGION says otherwise. */
export const LOCAL_S3_REGION = 'us-east-1';

/** The most keys one DeleteObjects request takes. */
const DELETE_BATCH = 1000;

/** A presigned POST: send `fields` as form fields, then the file as the field `file`, to `url`. */
export interface PresignedUpload {
  readonly url: string;
  readonly fields: Readonly<Record<string, string>>;
}

/** An object as a listing shows it. */
export interface ListedObject {
  readonly key: string;
  readonly size: number;
}

/** The bucket's IAM actions (without `s3:`) as the grants name them. */
type ObjectAction = 'GetObject' | 'PutObject' | 'DeleteObject' | 'ListBucket';

/**
 * The name of the S3 SDK's companion file beside a deployed bundle, set by esbuild's `define`
 * (infra/aws/service-function.ts bundles s3-sdk.ts into it); unset when running from the sources.
 */
export const S3_SDK_COMPANION_GLOBAL = 'STORAGE_S3_SDK_COMPANION';
declare const STORAGE_S3_SDK_COMPANION: string | undefined;

type S3Sdk = typeof import('./s3-sdk.ts');

/** The S3 client and its commands, loaded by the first object operation (the module cache keeps them). */
const sdk = (): Promise<S3Sdk> =>
  typeof STORAGE_S3_SDK_COMPANION === 'string' ? companionModule<S3Sdk>(STORAGE_S3_SDK_COMPANION) : import('./s3-sdk.ts');

let client: { endpoint: string | undefined; s3: S3Client } | undefined;

async function s3(): Promise<S3Client> {
  const endpoint = config('S3_ENDPOINT');
  if (client?.endpoint !== endpoint || !client) {
    const { S3Client } = await sdk();
    client = {
      endpoint,
      s3: new S3Client({
        maxAttempts: 3,
        // No checksum fields in presigned URLs and forms, nor aws-chunked bodies: plain requests, as a browser sends them.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        ...(endpoint
          ? { endpoint, forcePathStyle: true, region: config('AWS_REGION') ?? LOCAL_S3_REGION, credentials: LOCAL_S3_CREDENTIALS }
          : {}),
      }),
    };
  }
  return client.s3;
}

function bucket(): string {
  const name = setting(SUBMISSIONS_BUCKET_VARIABLE);
  if (!name)
    throw new Error(`${SUBMISSIONS_BUCKET_VARIABLE} is not set for ${describeRunningFunction()}: its definition declares no objects`);
  return name;
}

/** Locally: refuses an action the running function's definition does not grant on `key` (a prefix for ListBucket). */
function authorize(action: ObjectAction, key: string): void {
  const grants = currentScope()?.objectGrants;
  if (!grants) return;
  if (grants.some((grant) => key.startsWith(grant.prefix) && grant.actions.has(action))) return;
  throw Object.assign(
    new Error(`${describeRunningFunction()} is not authorized to perform: s3:${action} on resource: ${bucket()}/${key}`),
    { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } },
  );
}

const missing = (error: unknown): boolean => {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NoSuchKey' || name === 'NotFound' || $metadata?.httpStatusCode === 404;
};

/**
 * A presigned POST that stores exactly `key`, of at most `maxBytes` bytes, until `expiresSeconds`
 * have passed; with `contentType`, the form must send that Content-Type. The signer's grant is
 * what S3 checks when the form is used: the function needs PutObject on the key.
 */
export async function presignUpload(
  key: string,
  options: { readonly maxBytes: number; readonly expiresSeconds: number; readonly contentType?: string },
): Promise<PresignedUpload> {
  if (key.includes('${filename}')) throw new Error(`An upload key never holds \${filename}: ${key}`);
  authorize('PutObject', key);
  const { createPresignedPost } = await sdk();
  const Bucket = bucket();
  const { url, fields } = await createPresignedPost(await s3(), {
    Bucket,
    Key: key,
    Expires: options.expiresSeconds,
    Conditions: [['content-length-range', 0, options.maxBytes]],
    Fields: options.contentType === undefined ? {} : { 'Content-Type': options.contentType },
  });
  return { url, fields };
}

/** A presigned GET of `key`, valid for `expiresSeconds`, that downloads it as `fileName` (an attachment). */
export async function presignDownload(
  key: string,
  options: { readonly expiresSeconds: number; readonly fileName: string },
): Promise<string> {
  authorize('GetObject', key);
  const { GetObjectCommand, getSignedUrl } = await sdk();
  const command = new GetObjectCommand({ Bucket: bucket(), Key: key, ResponseContentDisposition: attachment(options.fileName) });
  return getSignedUrl(await s3(), command, { expiresIn: options.expiresSeconds });
}

/** `attachment; filename="…"; filename*=UTF-8''…`: an ASCII fallback and the exact name. */
function attachment(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const exact = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

/** Stores `body` as `key` (a stream needs its `length`). */
export async function putObject(key: string, body: Uint8Array | string | Readable, length?: number): Promise<void> {
  authorize('PutObject', key);
  const { PutObjectCommand } = await sdk();
  await (
    await s3()
  ).send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: body, ...(length === undefined ? {} : { ContentLength: length }) }));
}

/** The object's bytes as a stream, or undefined when there is no such object. */
export async function getObject(key: string): Promise<Readable | undefined> {
  authorize('GetObject', key);
  const { GetObjectCommand } = await sdk();
  try {
    const answer = await (await s3()).send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
    return answer.Body as Readable | undefined;
  } catch (error) {
    if (missing(error)) return undefined;
    throw error;
  }
}

/**
 * The object's bytes, or undefined when there is no such object. With `maxBytes`, a larger object
 * throws rather than being read into memory.
 */
export async function getObjectBytes(key: string, maxBytes?: number): Promise<Buffer | undefined> {
  const stream = await getObject(key);
  if (!stream) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (maxBytes !== undefined && size > maxBytes) {
      stream.destroy();
      throw new Error(`${key} is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The object's size, or undefined when there is no such object. Without ListBucket on the key, S3
 * answers a missing object with 403, which throws: grant ListBucket where a missing key is expected.
 */
export async function headObject(key: string): Promise<{ readonly size: number } | undefined> {
  authorize('GetObject', key);
  const { HeadObjectCommand } = await sdk();
  try {
    const answer = await (await s3()).send(new HeadObjectCommand({ Bucket: bucket(), Key: key }));
    return { size: answer.ContentLength ?? 0 };
  } catch (error) {
    if (missing(error)) return undefined;
    throw error;
  }
}

/** Copies `from` to `to` within the bucket (GetObject on `from`, PutObject on `to`); false when `from` is not there. */
export async function copyObject(from: string, to: string): Promise<boolean> {
  authorize('GetObject', from);
  authorize('PutObject', to);
  const { CopyObjectCommand } = await sdk();
  const Bucket = bucket();
  try {
    await (
      await s3()
    ).send(new CopyObjectCommand({ Bucket, Key: to, CopySource: `${Bucket}/${encodeURIComponent(from).replace(/%2F/g, '/')}` }));
    return true;
  } catch (error) {
    if (missing(error)) return false;
    throw error;
  }
}

/** Deletes the objects (missing ones are no error); throws naming the first key S3 would not delete. */
export async function deleteObjects(keys: readonly string[]): Promise<void> {
  for (const key of keys) authorize('DeleteObject', key);
  if (keys.length === 0) return;
  const { DeleteObjectsCommand } = await sdk();
  const Bucket = bucket();
  for (let start = 0; start < keys.length; start += DELETE_BATCH) {
    const batch = keys.slice(start, start + DELETE_BATCH);
    const answer = await (
      await s3()
    ).send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
    const failed = answer.Errors?.[0];
    if (failed) throw new Error(`Could not delete ${failed.Key}: ${failed.Code} ${failed.Message}`);
  }
}

/** Every object whose key starts with `prefix`, in key order. */
export async function listObjects(prefix: string): Promise<ListedObject[]> {
  authorize('ListBucket', prefix);
  const { ListObjectsV2Command } = await sdk();
  const Bucket = bucket();
  const objects: ListedObject[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await (await s3()).send(new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken }));
    for (const object of page.Contents ?? []) if (object.Key !== undefined) objects.push({ key: object.Key, size: object.Size ?? 0 });
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return objects;
}
