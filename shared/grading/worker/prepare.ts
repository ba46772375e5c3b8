import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { config } from '#shared/config.ts';
import { setting } from '#shared/environment.ts';
import { courseRef } from '#shared/data/courses.ts';
import { getItems } from '#shared/data/items.ts';
import { submissionRef } from '#shared/data/submissions.ts';
import { fileLimits, operatorFileBounds } from '#shared/files/rules.ts';
import type { GradeableDocument, TestCase } from '#shared/gradeables/gradeable.ts';
import { repositoryUrl } from '#shared/gradeables/repository.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { logger } from '#shared/logger.ts';
import { recordEnvironment, testCasesSha256 } from '../grading-record.ts';
import { defaultRunLimits, type RunRequest, type SandboxMode } from '../runner-protocol.ts';
import type { ClaimedJob } from '#shared/queue/claim.ts';
import { configuredBounds, runTestCases } from './limits.ts';
import { recordFailure, type Held, type Outcome, type RecordBasis } from './record.ts';

/** A job taken this many times without finishing is marked failed. */
export const MAX_ATTEMPTS = 3;

/** What a job's run needs, and what its grade is recorded against. */
export interface Prepared {
  readonly request: RunRequest;
  readonly testCases: readonly TestCase[];
  /** The commit the version's first grading checked out, if any. */
  readonly recorded: string | undefined;
  /** What its grading record says besides the commit and the result. */
  readonly basis: RecordBasis;
}

/** A version's stored files, each with a link the sandbox reads it from and the SHA-256 of its bytes. */
type VersionFiles = { name: string; url: string; sha256: string }[];

/** What the job's grading needs, or its outcome when it is not to be run (failed too often, nothing to grade). */
export async function prepareJob({ job, holds }: Held): Promise<Prepared | { outcome: Outcome }> {
  // The course with it: whether a grade, or a failure, is sent back to linked LMS courses (no read more).
  const { gradeable, course } = await getItems({
    gradeable: gradeableRef(job.term, job.course, job.gradeableId),
    course: courseRef(job.term, job.course),
  });
  const ltiScoreLinks = course?.ltiScoreLinks ?? 0;
  const fail = async (message: string) => ({ outcome: await recordFailure({ job, holds, message, ltiScoreLinks }) });
  if (job.attempts > MAX_ATTEMPTS) {
    logger.error({ message: 'Grading job failed for good', ticket: job.ticket, gradeableKey: job.gradeableKey });
    return fail(`Grading failed ${MAX_ATTEMPTS} times; your instructor has been told. Submitting again starts over.`);
  }
  // A gradeable without version control grades its versions' stored files, exactly as a checkout.
  const files = gradeable?.type === 'Electronic File' && !gradeable.vcs ? await versionObjects(job) : undefined;
  if (files?.length === 0) return fail("This version's files are no longer stored.");
  if (!gradeable || (!gradeable.vcs && !files)) return fail('This gradeable no longer takes repository submissions.');
  // The commit the version's first grading checked out, which its job carries (a regrade copies it
  // from the version; a retry after a lost lease finds it where the first attempt recorded it):
  // every later grading grades exactly it, never what the student pushed since.
  const request = runRequest(job, gradeable, files);
  const basis: RecordBasis = {
    team: Boolean(gradeable.team_gradeable),
    ...(files ? { files: Object.fromEntries(files.map((file) => [file.name, file.sha256])) } : {}),
    testCasesSha256: testCasesSha256(gradeable.autograding),
    ltiScoreLinks,
    environment: recordEnvironment({ codeBuild: Boolean(setting('GRADING_PROJECT')), sandbox: request.sandbox, image: request.image }),
  };
  return { request, testCases: gradeable.autograding?.test_cases ?? [], recorded: job.commit, basis };
}

/** The run of the job: where its files come from, its test cases within the operator's bounds, its sandbox. */
function runRequest(job: ClaimedJob, gradeable: GradeableDocument, files: VersionFiles | undefined): RunRequest {
  const fileBounds = files ? fileLimits(gradeable.submission_limits, operatorFileBounds()) : undefined;
  return {
    jobId: String(job.ticket),
    repository: repositoryOf(job, gradeable),
    ...(files ? { files: files.map(({ name, url }) => ({ name, url })) } : {}),
    testCases: runTestCases(gradeable.autograding?.test_cases ?? [], gradeable.autograding?.limits, operatorBounds()),
    limits: fileBounds
      ? { ...defaultRunLimits, maxRepositoryBytes: fileBounds.maxBytes, maxRepositoryFiles: fileBounds.maxFiles }
      : defaultRunLimits,
    allowedHosts: allowedGitHosts(),
    sandbox: sandboxFor(job),
    ...(gradeable.autograding?.image ? { image: gradeable.autograding.image } : {}),
    ...(job.commit ? { commit: job.commit } : {}),
  };
}

/**
 * The repository the job's version is checked out from: the address it was submitted from, or, for
 * a job written without one, the address the gradeable names; none for a files version.
 */
function repositoryOf(job: ClaimedJob, gradeable: GradeableDocument): RunRequest['repository'] {
  if (!gradeable.vcs) return { url: '', subdirectory: '' };
  const owner = { term: job.term, course: job.course, gradeableId: job.gradeableId, ownerId: job.ownerId };
  return { url: job.repository ?? repositoryUrl(gradeable.vcs, owner), subdirectory: gradeable.vcs.vcs_subdirectory };
}

/** How long the sandbox's links to a version's files last: it reads them as it starts. */
const FILE_LINK_SECONDS = 15 * 60;

/**
 * A files version's stored files, each with a presigned GET for the runner (which holds no
 * credentials): those under the files id its version records, never another submission's.
 */
async function versionObjects(job: ClaimedJob): Promise<VersionFiles> {
  const [{ getObject, listObjects, presignDownload }, { versionFilesPrefix, fileNameOf }] = await Promise.all([
    import('#shared/storage/objects.ts'),
    import('#shared/storage/keys.ts'),
  ]);
  const { submission } = await getItems({ submission: submissionRef(job.term, job.course, job.gradeableId, job.ownerId) });
  const filesId = submission?.versions.find((entry) => entry.version === job.version)?.files;
  if (filesId === undefined) return [];
  const folder = { term: job.term, course: job.course, gradeable: job.gradeableId, submitter: job.ownerId };
  const objects = await listObjects(versionFilesPrefix(folder, filesId));
  return Promise.all(
    objects.map(async ({ key }) => ({
      name: fileNameOf(key),
      url: await presignDownload(key, { expiresSeconds: FILE_LINK_SECONDS, fileName: fileNameOf(key) }),
      sha256: await objectSha256(getObject, key),
    })),
  );
}

/** The SHA-256 of a stored file's bytes, read as a stream (the version's files, for its grading record). */
async function objectSha256(getObject: (key: string) => Promise<Readable | undefined>, key: string): Promise<string> {
  const stream = await getObject(key);
  if (!stream) throw new Error(`${key} was listed but is gone`);
  const hash = createHash('sha256');
  for await (const chunk of stream as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

/** `GRADING_SANDBOX`, read for every job so that running without a sandbox is logged with every job. */
function sandboxFor(job: ClaimedJob): SandboxMode {
  const { mode, problem } = config('GRADING_SANDBOX');
  if (problem) logger.error({ message: problem, ticket: job.ticket });
  if (mode === 'unsafe-none') {
    logger.warn({
      message: 'GRADING_SANDBOX=unsafe-none: this job runs student code WITHOUT a sandbox (development only)',
      ticket: job.ticket,
      gradeableKey: job.gradeableKey,
    });
  }
  return mode;
}

/** The operator's `GRADING_MAX_*` bounds on the limits gradeables may ask for. */
function operatorBounds() {
  const { bounds, problems } = configuredBounds();
  for (const problem of problems) logger.error({ message: problem });
  return bounds;
}

/** `ALLOWED_GIT_HOSTS`: hosts that may be fetched although they resolve to private addresses. */
export const allowedGitHosts = (): string[] => config('ALLOWED_GIT_HOSTS');
