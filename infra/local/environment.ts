import { existsSync } from 'node:fs';
import { mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { ensureSecretFile } from '#shared/auth/signing-secret.ts';
import { ensureToolKeyFile } from '#shared/lti/tool-keys.ts';
import { ensureRecordKeysFile } from '#shared/grading/record-keys.ts';
import { lockDataFolder, startDynamoDbLocal, type DynamoDbWatch } from './dynamodb-local.ts';
import { localSubmissionsBucket } from './functions.ts';
import { startS3Endpoint, type LocalS3Endpoint } from './s3-endpoint.ts';
import { seedDemoData } from './seed.ts';
import { createTables, useLocalTables } from './tables.ts';

/** DynamoDB Local's database file for `-sharedDb`. */
const DATABASE_FILE = 'shared-local-instance.db';
/** Where a running `npm start` tells the admin command line which DynamoDB Local to use. */
const ENDPOINT_FILE = 'dynamodb-endpoint';

export const dataDirectory = (): string => resolve(process.env.DATA_DIR ?? '.data');

/**
 * The folder `file://` repositories must lie in (`FILE_REPOSITORIES_DIR`, made absolute): unless
 * it is set (empty: none), `<data folder>-repositories`, beside the data folder, where the demo's
 * repositories are made. Never the data folder, inside it or around it, nor around the signing
 * secret's folder: a gradeable could then read the database and the signing secret.
 */
async function repositoriesFolder(dataDir: string): Promise<string | undefined> {
  process.env.FILE_REPOSITORIES_DIR ??= `${dataDir}-repositories`;
  if (process.env.FILE_REPOSITORIES_DIR === '') return undefined;
  const folder = resolve(process.env.FILE_REPOSITORIES_DIR);
  process.env.FILE_REPOSITORIES_DIR = folder;
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const [data, repositories] = [await realpath(dataDir), await realpath(folder)];
  const within = (outer: string, inner: string) => {
    const rel = relative(outer, inner);
    return rel !== '..' && !rel.startsWith('../');
  };
  if (within(data, repositories) || within(repositories, data))
    throw new Error(`FILE_REPOSITORIES_DIR (${folder}) must lie outside the data folder (${dataDir}) and must not hold it`);
  const secret = process.env.SIGNING_SECRET_FILE;
  if (secret && within(repositories, await realpath(dirname(resolve(secret)))))
    throw new Error(`FILE_REPOSITORIES_DIR (${folder}) must not hold the signing secret's folder (${dirname(resolve(secret))})`);
  return folder;
}

/**
 * Whether `npm start` keeps DynamoDB Local's data in memory (DYNAMODB_IN_MEMORY=1, for
 * demonstrations and measurements): faster, and gone when it stops; the demo dataset is seeded
 * again on every start.
 */
export const dynamoDbInMemory = (): boolean => process.env.DYNAMODB_IN_MEMORY === '1';

export interface LocalEnvironment {
  readonly dataDir: string;
  readonly seeded: boolean;
  /** Whether DynamoDB Local holds its data in memory (dynamoDbInMemory) rather than in the data folder. */
  readonly inMemory: boolean;
  /** The local S3 endpoint's URL (S3_ENDPOINT). */
  readonly s3Endpoint: string;
  stop(): Promise<void>;
}

/**
 * The local stand-in for the AWS account: DynamoDB Local persisted in the data folder (or in
 * memory: dynamoDbInMemory), the tables, the signing secret and, in an empty data folder, the demo dataset. `watch`: what to do
 * when DynamoDB Local exits unasked (it is started again; see startDynamoDbLocal).
 */
export async function startLocalEnvironment(options: {
  announce: boolean;
  watch?: DynamoDbWatch;
  /** Browser origins whose pages may post files to the local S3 endpoint (CORS_ORIGINS). */
  corsOrigins?: readonly string[];
}): Promise<LocalEnvironment> {
  const dataDir = dataDirectory();
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const repositories = await repositoriesFolder(dataDir);
  const inMemory = dynamoDbInMemory();
  const empty = inMemory || !existsSync(join(dataDir, DATABASE_FILE));
  // In memory, a DynamoDB Local started again would answer with no tables: it is not restarted (`restart: false`).
  const dynamoDb = await startDynamoDbLocal(inMemory ? { watch: options.watch, restart: false } : { dataDir, watch: options.watch });
  let s3: LocalS3Endpoint | undefined;
  const stop = async () => {
    if (options.announce) await rm(join(dataDir, ENDPOINT_FILE), { force: true });
    await s3?.close();
    await dynamoDb.stop();
  };
  try {
    // Submitted files: the local S3 endpoint, its objects in the data folder.
    s3 = await startS3Endpoint({ directory: join(dataDir, 'objects'), bucket: localSubmissionsBucket(), corsOrigins: options.corsOrigins });
    process.env.S3_ENDPOINT = s3.url;
    process.env.DYNAMODB_ENDPOINT = dynamoDb.endpoint;
    process.env.SIGNING_SECRET_FILE ||= join(dataDir, 'signing-secret');
    await ensureSecretFile(process.env.SIGNING_SECRET_FILE);
    process.env.LTI_KEY_FILE ||= join(dataDir, 'lti-key.json');
    await ensureToolKeyFile(process.env.LTI_KEY_FILE);
    process.env.RECORD_KEYS_FILE ||= join(dataDir, 'record-keys');
    await ensureRecordKeysFile(process.env.RECORD_KEYS_FILE);
    useLocalTables();
    await createTables();
    if (empty) await seedDemoData(repositories ?? `${dataDir}-repositories`);
    if (options.announce) await writeFile(join(dataDir, ENDPOINT_FILE), dynamoDb.endpoint, { mode: 0o600 });
    // Nothing in the data folder (database, secret, repositories) is for other users of the machine.
    await lockDataFolder(dataDir);
  } catch (error) {
    await stop();
    throw error;
  }
  return { dataDir, seeded: empty, inMemory, s3Endpoint: s3.url, stop };
}

/** The endpoint of the DynamoDB Local that a running `npm start` uses, if any. */
export async function announcedEndpoint(): Promise<string | undefined> {
  try {
    return (await readFile(join(dataDirectory(), ENDPOINT_FILE), 'utf8')).trim() || undefined;
  } catch {
    return undefined;
  }
}
