import type { IncomingMessage } from 'node:http';
import { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { describe, expect, it } from 'vitest';
import { ACCOUNT, REGION, type Deployment, type IamRole } from './cloudformation.ts';
import { PolicyEvaluator, sessionArn } from './iam.ts';
import { S3Service, type Signer } from './s3.ts';

// The emulation's browser-based POST uploads, on a bucket of its own: a role allowed to put under uploads/ only.
const BUCKET = 'submissions-bucket';
const role: IamRole = {
  logicalId: 'UploadsRole',
  name: 'uploads-role',
  arn: `arn:aws:iam::${ACCOUNT}:role/uploads-role`,
  trustPolicy: undefined,
  policies: [
    {
      name: 'uploads',
      document: {
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Action: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'], Resource: `arn:aws:s3:::${BUCKET}/uploads/*` },
          { Effect: 'Allow', Action: 's3:PutObject', Resource: `arn:aws:s3:::${BUCKET}/versions/*` },
          {
            Effect: 'Allow',
            Action: 's3:ListBucket',
            Resource: `arn:aws:s3:::${BUCKET}`,
            Condition: { StringLike: { 's3:prefix': 'versions/*' } },
          },
        ],
      },
    },
  ],
};
const signer: Signer = {
  principal: { label: 'UploadsRole', arn: sessionArn(role, 'function'), role },
  secretAccessKey: 'secret-of-the-role',
  sessionToken: 'session-token-of-the-role',
};
const credentials = { accessKeyId: 'ASIAUPLOADS', secretAccessKey: signer.secretAccessKey, sessionToken: signer.sessionToken };
const lookup = (key: string) => (key === credentials.accessKeyId ? signer : undefined);

function service(): S3Service {
  const deployment = { buckets: [{ logicalId: 'Bucket', name: BUCKET, arn: `arn:aws:s3:::${BUCKET}`, policies: [] }], fileAssets: [] };
  return new S3Service(deployment as unknown as Deployment, new PolicyEvaluator());
}

async function post(
  s3: S3Service,
  key: string,
  options: { bytes: number; maxBytes?: number; expires?: number; change?: (form: FormData) => void },
) {
  const client = new S3Client({ region: REGION, credentials, endpoint: 'https://s3.amazonaws.com', forcePathStyle: true });
  const { fields } = await createPresignedPost(client, {
    Bucket: BUCKET,
    Key: key,
    Expires: options.expires ?? 300,
    Conditions: [['content-length-range', 0, options.maxBytes ?? 100]],
  });
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  options.change?.(form);
  form.append('file', new Blob([new Uint8Array(options.bytes)]), 'a.zip');
  const encoded = new Request('https://s3.amazonaws.com/', { method: 'POST', body: form });
  const body = Buffer.from(await encoded.arrayBuffer());
  const request = { method: 'POST', url: `/${BUCKET}`, headers: { 'content-type': encoded.headers.get('content-type')! } };
  return s3.handle(request as unknown as IncomingMessage, body, undefined, lookup);
}

describe('browser-based POST uploads in the deployed test’s S3', () => {
  it('stores a form within its policy, under the signer’s IAM', async () => {
    const s3 = service();
    const reply = await post(s3, 'uploads/a', { bytes: 10 });
    expect(reply.status).toBe(204);
    expect(s3.storedKeys()).toEqual([`${BUCKET}/uploads/a`]);
  });

  it('refuses what S3 refuses: the size range, another key, an expired policy, a forged signature, a key outside the grant', async () => {
    const s3 = service();
    expect((await post(s3, 'uploads/a', { bytes: 101 })).status).toBe(400);
    expect((await post(s3, 'uploads/a', { bytes: 1, change: (form) => form.set('key', 'uploads/b') })).status).toBe(403);
    expect((await post(s3, 'uploads/a', { bytes: 1, expires: -60 })).status).toBe(403);
    expect((await post(s3, 'uploads/a', { bytes: 1, change: (form) => form.set('X-Amz-Signature', '0'.repeat(64)) })).status).toBe(403);
    expect((await post(s3, 'uploads/a', { bytes: 1, change: (form) => form.set('X-Amz-Security-Token', 'other') })).status).toBe(403);
    expect((await post(s3, 'elsewhere/a', { bytes: 1 })).status).toBe(403);
    expect(s3.storedKeys()).toEqual([]);
    expect(s3.refusals.map((refusal) => refusal.code)).toEqual([
      'EntityTooLarge',
      'AccessDenied',
      'AccessDenied',
      'SignatureDoesNotMatch',
      'AccessDenied',
    ]);
  });
});

describe('copying, listing and deleting in the deployed test’s S3', () => {
  /** A header-signed request of the role (the endpoint has checked its signature). */
  const signed = (s3: S3Service, method: string, url: string, headers: Record<string, string> = {}, body = '') =>
    s3.handle({ method, url, headers } as unknown as IncomingMessage, Buffer.from(body), signer, lookup);

  it('copies with GetObject of the source and PutObject of the target, lists under ListBucket’s prefix, deletes key by key', async () => {
    const s3 = service();
    expect((await post(s3, 'uploads/a', { bytes: 10 })).status).toBe(204);
    expect((await signed(s3, 'PUT', `/${BUCKET}/versions/1/a.zip`, { 'x-amz-copy-source': `/${BUCKET}/uploads/a` })).status).toBe(200);
    // Reading back a version is not granted.
    expect((await signed(s3, 'PUT', `/${BUCKET}/uploads/b`, { 'x-amz-copy-source': `/${BUCKET}/versions/1/a.zip` })).status).toBe(403);

    const listed = await signed(s3, 'GET', `/${BUCKET}?list-type=2&prefix=versions%2F`);
    expect(listed.status).toBe(200);
    expect(String(listed.body)).toContain('<Key>versions/1/a.zip</Key><LastModified>');
    expect(String(listed.body)).toContain('<Size>10</Size>');
    expect((await signed(s3, 'GET', `/${BUCKET}?list-type=2&prefix=uploads%2F`)).status).toBe(403);

    const deleted = await signed(
      s3,
      'POST',
      `/${BUCKET}?delete`,
      {},
      '<Delete><Object><Key>uploads/a</Key></Object><Object><Key>versions/1/a.zip</Key></Object><Quiet>true</Quiet></Delete>',
    );
    expect(deleted.status).toBe(200);
    expect(String(deleted.body)).toContain('<Error><Key>versions/1/a.zip</Key><Code>AccessDenied</Code>');
    expect(s3.storedKeys()).toEqual([`${BUCKET}/versions/1/a.zip`]);
  });
});
