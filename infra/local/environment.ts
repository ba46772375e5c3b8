import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ensureSecretFile } from '#shared/auth/signing-secret.ts';
import { lockDataFolder, startDynamoDbLocal } from './dynamodb-local.ts';
import { seedDemoData } from './seed.ts';
import { createTables, useLocalTables } from './tables.ts';

/** DynamoDB Local's database file for `-sharedDb`. */
const DATABASE_FILE = 'shared-local-instance.db';
/** Where a running `npm start` tells the admin command line which DynamoDB Local to use. */
const ENDPOINT_FILE = 'dynamodb-endpoint';

export const dataDirectory = (): string => resolve(process.env.DATA_DIR ?? '.data');

export interface LocalEnvironment {
  readonly dataDir: string;
  readonly seeded: boolean;
  stop(): Promise<void>;
}

/**
 * The local stand-in for the AWS account: DynamoDB Local persisted in the data folder, the
 * tables, the signing secret and, in an empty data folder, the demo dataset.
 */
export async function startLocalEnvironment(options: { announce: boolean }): Promise<LocalEnvironment> {
  const dataDir = dataDirectory();
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const empty = !existsSync(join(dataDir, DATABASE_FILE));
  const dynamoDb = await startDynamoDbLocal({ dataDir });
  const stop = async () => {
    if (options.announce) await rm(join(dataDir, ENDPOINT_FILE), { force: true });
    await dynamoDb.stop();
  };
  try {
    process.env.DYNAMODB_ENDPOINT = dynamoDb.endpoint;
    process.env.SIGNING_SECRET_FILE ||= join(dataDir, 'signing-secret');
    await ensureSecretFile(process.env.SIGNING_SECRET_FILE);
    useLocalTables();
    await createTables();
    if (empty) await seedDemoData(dataDir);
    if (options.announce) await writeFile(join(dataDir, ENDPOINT_FILE), dynamoDb.endpoint, { mode: 0o600 });
    // Nothing in the data folder (database, secret, repositories) is for other users of the machine.
    await lockDataFolder(dataDir);
  } catch (error) {
    await stop();
    throw error;
  }
  return { dataDir, seeded: empty, stop };
}

/** The endpoint of the DynamoDB Local that a running `npm start` uses, if any. */
export async function announcedEndpoint(): Promise<string | undefined> {
  try {
    return (await readFile(join(dataDirectory(), ENDPOINT_FILE), 'utf8')).trim() || undefined;
  } catch {
    return undefined;
  }
}
