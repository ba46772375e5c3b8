import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureSecretFile } from '#shared/auth/signing-secret.ts';
import { ensureToolKeyFile } from '#shared/lti/tool-keys.ts';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';
import { startS3Endpoint } from '#infra/local/s3-endpoint.ts';
import { SHARED_REPOSITORY, startGitServer } from './git-server.ts';

/**
 * One in-memory DynamoDB Local, one signing secret, one local S3 endpoint (its objects in a
 * temporary folder, the submissions bucket created) and one git server (serving a repository at
 * every path: submissions read its head) for the whole run of the `integration` project
 * (vitest.config.ts); the `unit` project has no global setup and starts no Java.
 */
export default async function setup(project: TestProject) {
  const dynamoDb = await startDynamoDbLocal();
  const secretDir = await mkdtemp(join(tmpdir(), 'course-api-test-'));
  const secretFile = join(secretDir, 'signing-secret');
  await ensureSecretFile(secretFile);
  const ltiKeyFile = join(secretDir, 'lti-key.json');
  await ensureToolKeyFile(ltiKeyFile);
  const s3 = await startS3Endpoint({ directory: join(secretDir, 'objects'), bucket: 'submissions' });
  const git = await startGitServer({ [SHARED_REPOSITORY.name]: SHARED_REPOSITORY.files }, { anyPath: SHARED_REPOSITORY.name });
  project.provide('dynamodbEndpoint', dynamoDb.endpoint);
  project.provide('signingSecretFile', secretFile);
  project.provide('ltiKeyFile', ltiKeyFile);
  project.provide('gitServer', { url: git.url, host: git.host });
  project.provide('s3Endpoint', { url: s3.url, bucket: s3.bucket });
  return async () => {
    await dynamoDb.stop();
    await s3.close();
    await git.close();
    await rm(secretDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    signingSecretFile: string;
    /** The LTI tool's keys (LTI_KEY_FILE): a current and a next key. */
    ltiKeyFile: string;
    /** The run's git server: any path names a repository (SHARED_REPOSITORY). */
    gitServer: { url: string; host: string };
    /** The run's local S3 endpoint (S3_ENDPOINT) and its submissions bucket (SUBMISSIONS_BUCKET). */
    s3Endpoint: { url: string; bucket: string };
  }
}
