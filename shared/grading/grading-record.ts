/**
 * A graded version's record: what was graded (the commit, or each file's SHA-256), the test cases
 * it was graded by (the SHA-256 of the gradeable's autograding configuration as the worker used
 * it), where (the sandbox and image), the SHA-256 of its result as stored, and when. The worker
 * signs it as a compact JWS (EdDSA) and stores it with the result, so anyone holding the record
 * and the deployment's published keys can check it offline, and whoever recomputes the hash of
 * the result as stored learns whether it changed since it was graded.
 */
import { createHash } from 'node:crypto';

/** How the version was sandboxed: `bubblewrap` (npm start), `none` (GRADING_SANDBOX=unsafe-none), `codebuild` (AWS). */
export type RecordSandbox = 'bubblewrap' | 'none' | 'codebuild';

export interface RecordEnvironment {
  readonly sandbox: RecordSandbox;
  /** The build image the gradeable asked for (AWS only; `default` when it names none), null locally. */
  readonly image: string | null;
  /**
   * The digest of the image the build ran, as the build itself reports its image (`…@sha256:…`);
   * null when it reports a tag, as it does for CodeBuild's curated images (the only ones offered),
   * whose digest CodeBuild reports nowhere.
   */
  readonly image_digest: string | null;
  /** The CodeBuild build that ran it: its ARN and its image as CodeBuild reported the build's environment. Null locally. */
  readonly build: RecordBuild | null;
}

/** A CodeBuild build as the worker learnt it from CodeBuild (StartBuild's answer), never from configuration. */
export interface RecordBuild {
  readonly arn: string;
  /** `environment.image` of the build as CodeBuild reported it (e.g. `aws/codebuild/standard:7.0`); null if it reported none. */
  readonly image: string | null;
}

/** What was graded: a commit, or each stored file by name with its SHA-256 (hex); neither for a version without history. */
export type RecordGraded = { readonly commit: string } | { readonly files: Readonly<Record<string, string>> } | Record<string, never>;

/** The record's payload (the JWS's, as JSON). */
export interface GradingRecordPayload {
  /** The deployment (its TOKEN_ISSUER). */
  readonly iss: string;
  /** When it was signed, in seconds since the epoch. */
  readonly iat: number;
  /** `<semester>/<course>`. */
  readonly course: string;
  readonly gradeable: string;
  readonly owner: { readonly user_id: string } | { readonly team_id: string };
  readonly version: number;
  readonly graded: RecordGraded;
  readonly test_cases_sha256: string;
  readonly environment: RecordEnvironment;
  /** SHA-256 of the canonical JSON of the result as stored (`storedResult`). */
  readonly result_sha256: string;
  /** When the result was stored (ISO 8601), as the results item says. */
  readonly graded_at: string;
}

/**
 * JSON with object keys sorted at every level and no spaces (RFC 8785's order for the ASCII keys
 * this service writes), so the same value always hashes the same, whoever serializes it.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((entry: unknown) => canonicalJson(entry === undefined ? null : entry)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, entry]) => entry !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
}

export const sha256Hex = (bytes: string | Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The SHA-256 of a value's canonical JSON. */
export const canonicalSha256 = (value: unknown): string => sha256Hex(canonicalJson(value));

/** The result as the results table stores it, and as the record route answers it: what `result_sha256` is the hash of. */
export interface StoredResult {
  readonly version: number;
  readonly testCases: readonly unknown[];
  readonly points: number;
}

export const storedResultSha256 = (result: StoredResult): string =>
  canonicalSha256({ version: result.version, testCases: result.testCases, points: result.points });

/** The test cases a version is graded by: the gradeable's autograding configuration (none: `{}`). */
export const testCasesSha256 = (autograding: unknown): string => canonicalSha256(autograding ?? {});

/** The environment a worker grades in: a CodeBuild build in AWS, else the local sandbox. */
export function recordEnvironment({
  codeBuild,
  sandbox,
  image,
}: {
  codeBuild: boolean;
  sandbox: 'bwrap' | 'unsafe-none';
  image?: string;
}): RecordEnvironment {
  if (codeBuild) return { sandbox: 'codebuild', image: image ?? 'default', image_digest: null, build: null };
  return { sandbox: sandbox === 'bwrap' ? 'bubblewrap' : 'none', image: null, image_digest: null, build: null };
}

/** The digest an image reference pins (`<repository>@sha256:<64 hex>`), or null for a tag. Pure. */
export function imageDigest(image: string | null): string | null {
  return /@(sha256:[0-9a-f]{64})$/.exec(image ?? '')?.[1] ?? null;
}

/**
 * The environment a version was graded in, with the build that ran it (none locally): its ARN,
 * and the digest only where the build's own reported image pins one. Pure.
 */
export function environmentWithBuild(environment: RecordEnvironment, build: RecordBuild | undefined): RecordEnvironment {
  if (build === undefined) return environment;
  return { ...environment, build: { arn: build.arn, image: build.image }, image_digest: imageDigest(build.image) };
}

/** What a record says, given what the worker knows. */
export function gradingRecordPayload(parts: {
  issuer: string;
  term: string;
  course: string;
  gradeableId: string;
  ownerId: string;
  team: boolean;
  graded: RecordGraded;
  testCasesSha256: string;
  environment: RecordEnvironment;
  result: StoredResult;
  gradedAt: Date;
}): GradingRecordPayload {
  return {
    iss: parts.issuer,
    iat: Math.floor(parts.gradedAt.getTime() / 1000),
    course: `${parts.term}/${parts.course}`,
    gradeable: parts.gradeableId,
    owner: parts.team ? { team_id: parts.ownerId } : { user_id: parts.ownerId },
    version: parts.result.version,
    graded: parts.graded,
    test_cases_sha256: parts.testCasesSha256,
    environment: parts.environment,
    result_sha256: storedResultSha256(parts.result),
    graded_at: parts.gradedAt.toISOString(),
  };
}
