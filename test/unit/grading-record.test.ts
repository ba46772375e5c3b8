import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compactVerify, createLocalJWKSet } from 'jose';
import { runAdminCommand } from '#infra/admin/commands.ts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  canonicalJson,
  canonicalSha256,
  gradingRecordPayload,
  environmentWithBuild,
  imageDigest,
  recordEnvironment,
  storedResultSha256,
  testCasesSha256,
} from '#shared/grading/grading-record.ts';
import { ensureRecordKeysFile, parseRecordSeeds, publishedRecordKeys, recordKeyOf } from '#shared/grading/record-keys.ts';
import { signRecord } from '#shared/grading/sign-record.ts';
import { recordPayload } from '#shared/grading/version-record.ts';

const SEED = 'a'.repeat(43);

describe('canonical JSON', () => {
  it('sorts keys at every level, leaves out undefined members, keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { y: 1, x: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"x":2,"y":1}]},"b":1}');
  });

  it('hashes the same value the same whatever order its keys were written in', () => {
    expect(canonicalSha256({ test_cases: [{ name: 'Runs', points_available: 2 }], limits: {} })).toBe(
      canonicalSha256({ limits: {}, test_cases: [{ points_available: 2, name: 'Runs' }] }),
    );
    expect(testCasesSha256({ test_cases: [] })).not.toBe(testCasesSha256({ test_cases: [{ name: 'Runs' }] }));
    expect(testCasesSha256(undefined)).toBe(canonicalSha256({}));
  });

  it('hashes a stored result by its version, test cases and points only', () => {
    const result = { version: 2, testCases: [{ name: 'Runs', points: 2 }], points: 2 };
    expect(storedResultSha256(result)).toBe(canonicalSha256(result));
    expect(storedResultSha256({ ...result, points: 3 })).not.toBe(storedResultSha256(result));
  });
});

describe('the grading environment', () => {
  it('names bubblewrap or no sandbox locally and the image asked for in CodeBuild', () => {
    expect(recordEnvironment({ codeBuild: false, sandbox: 'bwrap' })).toEqual({
      sandbox: 'bubblewrap',
      image: null,
      image_digest: null,
      build: null,
    });
    expect(recordEnvironment({ codeBuild: false, sandbox: 'unsafe-none' })).toEqual({
      sandbox: 'none',
      image: null,
      image_digest: null,
      build: null,
    });
    expect(recordEnvironment({ codeBuild: true, sandbox: 'bwrap' })).toEqual({
      sandbox: 'codebuild',
      image: 'default',
      image_digest: null,
      build: null,
    });
    expect(recordEnvironment({ codeBuild: true, sandbox: 'bwrap', image: 'python' }).image).toBe('python');
  });

  const ARN = 'arn:aws:codebuild:eu-west-1:123456789012:build/grading:0b1c';
  const DIGEST = `sha256:${'ab'.repeat(32)}`;

  it("names the build that ran the grading and its image as CodeBuild reported it, with no digest for a curated image's tag", () => {
    const asked = recordEnvironment({ codeBuild: true, sandbox: 'bwrap' });
    expect(environmentWithBuild(asked, { arn: ARN, image: 'aws/codebuild/standard:7.0' })).toEqual({
      sandbox: 'codebuild',
      image: 'default',
      image_digest: null,
      build: { arn: ARN, image: 'aws/codebuild/standard:7.0' },
    });
    expect(environmentWithBuild(asked, { arn: ARN, image: null })).toMatchObject({ image_digest: null, build: { arn: ARN, image: null } });
  });

  it('records a digest only where the image the build reports pins one, never from what was asked for', () => {
    const asked = recordEnvironment({ codeBuild: true, sandbox: 'bwrap', image: `registry.example.edu/grader@${DIGEST}` });
    expect(asked.image_digest).toBeNull();
    const ran = environmentWithBuild(asked, { arn: ARN, image: `123456789012.dkr.ecr.eu-west-1.amazonaws.com/grader@${DIGEST}` });
    expect(ran.image_digest).toBe(DIGEST);
    expect(imageDigest(`grader@sha256:${'ab'.repeat(31)}`)).toBeNull();
    expect(imageDigest('grader:sha256')).toBeNull();
    expect(imageDigest(null)).toBeNull();
  });

  it('leaves a local grading without a build as it was', () => {
    const local = recordEnvironment({ codeBuild: false, sandbox: 'bwrap' });
    expect(environmentWithBuild(local, undefined)).toBe(local);
  });
});

describe('a record payload', () => {
  const parts = {
    issuer: 'course-submission-api',
    term: 'f26',
    course: 'sample',
    gradeableId: 'hw1',
    ownerId: 'student',
    team: false,
    graded: { commit: 'abc' },
    testCasesSha256: canonicalSha256({}),
    environment: recordEnvironment({ codeBuild: false, sandbox: 'bwrap' }),
    result: { version: 3, testCases: [], points: 0 },
    gradedAt: new Date('2026-11-29T06:00:00.500Z'),
  };

  it('names the course, the owner (a user or a team), the version and the time', () => {
    expect(gradingRecordPayload(parts)).toEqual({
      iss: 'course-submission-api',
      iat: Date.parse('2026-11-29T06:00:00Z') / 1000,
      course: 'f26/sample',
      gradeable: 'hw1',
      owner: { user_id: 'student' },
      version: 3,
      graded: { commit: 'abc' },
      test_cases_sha256: canonicalSha256({}),
      environment: { sandbox: 'bubblewrap', image: null, image_digest: null, build: null },
      result_sha256: storedResultSha256(parts.result),
      graded_at: '2026-11-29T06:00:00.500Z',
    });
    expect(gradingRecordPayload({ ...parts, team: true, ownerId: 'team_1' }).owner).toEqual({ team_id: 'team_1' });
  });
});

describe('record keys', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'record-keys-'));
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await rm(folder, { recursive: true, force: true });
  });

  it('are each made from a seed of at least 32 characters, the same key from the same seed', async () => {
    expect(() => parseRecordSeeds('short\n')).toThrow(/at least 32 characters/);
    expect(() => parseRecordSeeds('\n\n')).toThrow(/no key/);
    expect(parseRecordSeeds(`${SEED}\n\n${'b'.repeat(40)}\n`)).toEqual([SEED, 'b'.repeat(40)]);
    const [one, again] = await Promise.all([recordKeyOf(SEED), recordKeyOf(SEED)]);
    expect(one.kid).toBe(again.kid);
    expect(one.publicJwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: one.kid });
    expect(JSON.stringify(one.publicJwk)).not.toContain('"d"');
  });

  it('sign records that verify against the published set, still after the admin command adds a new key', async () => {
    const file = join(folder, 'record-keys');
    vi.stubEnv('RECORD_KEYS_ARN', '');
    vi.stubEnv('RECORD_KEYS_FILE', file);
    await ensureRecordKeysFile(file);
    const first = await readFile(file, 'utf8');
    await ensureRecordKeysFile(file);
    expect(await readFile(file, 'utf8')).toBe(first);
    const payload = gradingRecordPayload({
      issuer: 'i',
      term: 'f26',
      course: 'c',
      gradeableId: 'g',
      ownerId: 'u',
      team: false,
      graded: {},
      testCasesSha256: canonicalSha256({}),
      environment: recordEnvironment({ codeBuild: false, sandbox: 'bwrap' }),
      result: { version: 1, testCases: [], points: 0 },
      gradedAt: new Date(),
    });
    const before = await signRecord(payload);
    expect(recordPayload(before)).toEqual(payload);
    const told: string[] = [];
    await runAdminCommand(['rotate-record-key'], (line) => told.push(line));
    const kid = /key (\S+) from now on/.exec(told.join('\n'))?.[1];
    const after = await signRecord(payload);
    const keys = await publishedRecordKeys();
    expect(keys.keys.map((key) => key.kid)[0]).toBe(kid);
    expect(keys.keys).toHaveLength(2);
    for (const record of [before, after]) await expect(compactVerify(record, createLocalJWKSet(keys))).resolves.toBeDefined();
    expect(JSON.parse(Buffer.from(after.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'EdDSA', kid });
  });
});
