import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureSecretFile } from '#shared/auth/signing-secret.ts';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';

/**
 * One in-memory DynamoDB Local and one signing secret for the whole run of the `integration`
 * project (vitest.config.ts); the `unit` project has no global setup and starts no Java.
 */
export default async function setup(project: TestProject) {
  const dynamoDb = await startDynamoDbLocal();
  const secretDir = await mkdtemp(join(tmpdir(), 'course-api-test-'));
  const secretFile = join(secretDir, 'signing-secret');
  await ensureSecretFile(secretFile);
  project.provide('dynamodbEndpoint', dynamoDb.endpoint);
  project.provide('signingSecretFile', secretFile);
  return async () => {
    await dynamoDb.stop();
    await rm(secretDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    signingSecretFile: string;
  }
}
