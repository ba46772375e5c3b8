import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureSecretFile } from '#shared/auth/signing-secret.ts';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';
import { SHARED_REPOSITORY, startGitServer } from './git-server.ts';

/**
 * One in-memory DynamoDB Local, one signing secret and one git server (serving a repository at
 * every path: submissions read its head) for the whole run of the `integration` project
 * (vitest.config.ts); the `unit` project has no global setup and starts no Java.
 */
export default async function setup(project: TestProject) {
  const dynamoDb = await startDynamoDbLocal();
  const secretDir = await mkdtemp(join(tmpdir(), 'course-api-test-'));
  const secretFile = join(secretDir, 'signing-secret');
  await ensureSecretFile(secretFile);
  const git = await startGitServer({ [SHARED_REPOSITORY.name]: SHARED_REPOSITORY.files }, { anyPath: SHARED_REPOSITORY.name });
  project.provide('dynamodbEndpoint', dynamoDb.endpoint);
  project.provide('signingSecretFile', secretFile);
  project.provide('gitServer', { url: git.url, host: git.host });
  return async () => {
    await dynamoDb.stop();
    await git.close();
    await rm(secretDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    signingSecretFile: string;
    /** The run's git server: any path names a repository (SHARED_REPOSITORY). */
    gitServer: { url: string; host: string };
  }
}
