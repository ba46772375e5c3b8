import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { inject } from 'vitest';
import { createTables, useLocalTables } from '#infra/local/tables.ts';

// Every integration test file gets tables of its own (a unique name prefix) in the shared DynamoDB Local.
process.env.DYNAMODB_ENDPOINT = inject('dynamodbEndpoint');
process.env.SIGNING_SECRET_FILE = inject('signingSecretFile');
process.env.LTI_KEY_FILE = inject('ltiKeyFile');
// Grading records are signed with the run's record keys, made by the first file to sign one.
process.env.RECORD_KEYS_FILE = join(dirname(inject('signingSecretFile')), 'record-keys');
// Submissions read their repository's head: gradeables of tests not about repositories use the run's git server.
process.env.ALLOWED_GIT_HOSTS = inject('gitServer').host;
// Submitted files go to the run's local S3 endpoint; each file keeps to keys of its own (the tables' prefix is in every id).
process.env.S3_ENDPOINT = inject('s3Endpoint').url;
process.env.SUBMISSIONS_BUCKET = inject('s3Endpoint').bucket;
process.env.TABLE_PREFIX = `t${randomUUID().slice(0, 8)}-`;
useLocalTables();
await createTables();
