import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { describe, expect, it } from 'vitest';
import { jobKeys, presignS3 } from '#shared/grading/builds/input.ts';

const credentials = {
  accessKeyId: 'ASIAEXAMPLEKEY',
  secretAccessKey: 'wJalr/XUtnFEMI+K7MDENG=bPxRfiCY',
  sessionToken: 'IQoJb3Jp+Z2lu/X2Vj=EO',
};
const key = jobKeys('arn:aws:codebuild:us-east-1:123456789012:build/GradingProject-1a2B:0b7e-4f21 (x)!', 1).input;
const now = new Date('2026-03-04T05:06:07.890Z');

/** What the AWS SDK's own presigner makes of the same request. */
async function sdkUrl(endpoint?: string): Promise<string> {
  const s3 = new S3Client({
    region: 'eu-west-3',
    credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
  });
  return getSignedUrl(s3, new GetObjectCommand({ Bucket: 'jobs-bucket-1x2y', Key: key }), { expiresIn: 60, signingDate: now });
}

describe("the build's own signature of its input's request", () => {
  it('is the AWS SDK presigner’s (address, parameters and signature) at S3’s own address and at an endpoint addressed path-style', async () => {
    for (const endpoint of [undefined, 'http://127.0.0.1:4566']) {
      const expected = await sdkUrl(endpoint);
      const ours = presignS3({
        method: 'GET',
        bucket: 'jobs-bucket-1x2y',
        key,
        region: 'eu-west-3',
        credentials,
        endpoint,
        now,
        expiresSeconds: 60,
        query: Object.fromEntries([...new URL(expected).searchParams].filter(([name]) => !name.startsWith('X-Amz-'))),
      });
      const parts = (url: string) => {
        const parsed = new URL(url);
        return { address: `${parsed.origin}${parsed.pathname}`, query: [...parsed.searchParams].sort() };
      };
      expect(parts(ours)).toEqual(parts(expected));
      expect(new URL(ours).searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('names the objects of each of the build’s jobs by its ARN and the job’s slot', () => {
    expect(jobKeys('arn:aws:codebuild:us-east-1:1:build/P:u', 2)).toEqual({
      input: 'jobs/arn:aws:codebuild:us-east-1:1:build/P:u/2/input.tgz',
      result: 'jobs/arn:aws:codebuild:us-east-1:1:build/P:u/2/result.json',
    });
  });
});
