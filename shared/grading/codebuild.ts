import { mkdir, mkdtemp, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StartBuildCommandInput } from '@aws-sdk/client-codebuild';
import { setting } from '#shared/environment.ts';
import { jobKeys } from './build-input.ts';
import { checkoutOrFailure } from './checkout.ts';
import { removeFolder } from './checkout-files.ts';
import type { HarnessJob, HarnessResult } from './harness/protocol.ts';
import { acceptHarnessResult, MAX_RESULT_BYTES, newResultKey, ResultRefused } from './harness-result.ts';
import type { RunHooks, RunRequest, RunResult } from './runner-protocol.ts';

/** Between two looks at a running build. */
const POLL_MS = 5_000;
/** Time a build needs on top of its test cases: provisioning, downloads, the harness's own work. */
const BUILD_OVERHEAD_SECONDS = 5 * 60;

/** Where the sandbox is, from the worker's environment (set by the stack). */
interface SandboxLocation {
  readonly project: string;
  readonly bucket: string;
  readonly harness: { readonly bucket: string; readonly key: string };
  readonly images: Readonly<Record<string, string>>;
}

export function codeBuildSandbox(): SandboxLocation | undefined {
  const project = setting('GRADING_PROJECT');
  if (!project) return undefined;
  const [, harnessBucket, harnessKey] = /^s3:\/\/([^/]+)\/(.+)$/.exec(setting('GRADING_HARNESS') ?? '') ?? [];
  const bucket = setting('GRADING_BUCKET');
  if (!harnessBucket || !harnessKey || !bucket)
    throw new Error('GRADING_PROJECT is set but GRADING_BUCKET or GRADING_HARNESS (s3://bucket/key) is not');
  return {
    project,
    bucket,
    harness: { bucket: harnessBucket, key: harnessKey },
    images: JSON.parse(setting('GRADING_IMAGES') ?? '{}') as Record<string, string>,
  };
}

export interface BuildOptions extends RunHooks {
  /** The approved image name the gradeable asks for (`default` when none). */
  readonly image?: string;
  /** When the worker must have an answer, so it can still record the outcome. */
  readonly deadline: number;
  readonly signal?: AbortSignal;
}

/**
 * Grades a submission in AWS: checks the repository out here in the worker (network, no student
 * code) at `request.commit` or the default branch's head, reports the commit
 * (`options.onCheckout`), puts its files, the job and the harness into the jobs bucket, and starts
 * a fresh CodeBuild build to run them. A build that never starts or never finishes by the deadline
 * is stopped and the job failed with a message, as is one whose result is refused (see buildJob).
 */
export async function runInCodeBuild(sandbox: SandboxLocation, request: RunRequest, options: BuildOptions): Promise<RunResult> {
  const image = sandbox.images[options.image ?? 'default'];
  if (!image) {
    const offered = Object.keys(sandbox.images).join(', ');
    return {
      status: 'sandbox-unavailable',
      message: `The gradeable asks for the image "${options.image}", which this deployment does not offer (offered: ${offered}).`,
    };
  }
  const jobFolder = await mkdtemp(join(tmpdir(), 'grading-job-'));
  try {
    const checkout = await checkoutOrFailure(request, options.signal, jobFolder);
    if ('status' in checkout) return checkout;
    if (checkout.commit) await options.onCheckout?.(checkout.commit);
    const job: HarnessJob = { testCases: request.testCases, maxOutputBytes: request.limits.maxOutputBytes, isolation: 'container' };
    const outcome = await buildJob(sandbox, { folder: jobFolder, submission: checkout.submission }, image, job, options);
    return outcome.kind === 'result'
      ? { status: 'graded', testCases: outcome.result.testCases, ...(checkout.commit ? { commit: checkout.commit } : {}) }
      : { status: 'sandbox-failed', message: outcome.message };
  } finally {
    await removeFolder(jobFolder);
  }
}

/** What the build finds in its input besides the submission: the harness, and where to put the result. */
interface ArchiveExtras {
  readonly harness: Uint8Array;
  readonly resultUrl: string;
}

/**
 * A gzipped tar of `files/…` (the submission's regular files and folders only) and `job.json`,
 * which the build unpacks as the grader, and `harness.mjs` and `result-url`, which it unpacks as
 * root for itself (0600: the grader never reads them).
 */
async function jobArchive(jobFolder: string, submission: string, job: HarnessJob, extras: ArchiveExtras): Promise<Buffer> {
  const staging = join(jobFolder, 'archive');
  await mkdir(staging);
  await rename(submission, join(staging, 'files'));
  await writeFile(join(staging, 'job.json'), JSON.stringify(job));
  await writeFile(join(staging, 'harness.mjs'), extras.harness, { mode: 0o600 });
  await writeFile(join(staging, 'result-url'), extras.resultUrl, { mode: 0o600 });
  const { create } = await import('tar');
  const chunks: Buffer[] = [];
  const stream = create(
    { gzip: true, cwd: staging, portable: true, filter: (_path, stat) => ('isFile' in stat ? stat.isFile() || stat.isDirectory() : true) },
    ['files', 'job.json', 'harness.mjs', 'result-url'],
  );
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The build's time limit: its test cases' and the overhead, 5 to 480 minutes (CodeBuild's range, within ours). */
export function buildTimeoutMinutes(testCases: readonly { readonly timeout_seconds: number }[]): number {
  const caseSeconds = testCases.reduce((sum, testCase) => sum + testCase.timeout_seconds, 0);
  return Math.min(480, Math.max(5, Math.ceil((caseSeconds + BUILD_OVERHEAD_SECONDS) / 60)));
}

/**
 * How long the job's presigned URLs stay valid: no longer than the build's own time limit, nor
 * past the moment the worker stops waiting for it (it then stops the build and deletes the objects).
 */
export function urlSeconds(timeoutMinutes: number, deadline: number, now = Date.now()): number {
  return Math.max(1, Math.min(timeoutMinutes * 60, Math.floor((deadline - now) / 1000)));
}

type BuildOutcome = { kind: 'result'; result: HarnessResult } | { kind: 'failed'; message: string };

const refusedMessage = (reason: string) =>
  `The grading sandbox's result was refused (${reason}); nothing was graded and your instructor has been told.`;

/**
 * What the worker asks CodeBuild for: the project, the image, the time limit. Nothing else: the
 * request is what BatchGetBuilds, the console and CloudTrail's StartBuild record show, so it holds
 * no URL, key or credential; the build finds its input by its own ARN (see build-input.ts).
 */
export function startBuildInput(project: string, image: string, timeoutMinutes: number): StartBuildCommandInput {
  return {
    projectName: project,
    imageOverride: image,
    environmentTypeOverride: /aarch64|arm/.test(image) ? 'ARM_CONTAINER' : 'LINUX_CONTAINER',
    timeoutInMinutesOverride: timeoutMinutes,
  };
}

/**
 * Runs the job in a fresh build. The build is started first, for CodeBuild to name it: the job's
 * input goes under the build's ARN, the one object of the jobs bucket the build's role may read
 * (it waits for it). The input carries the rest: the harness, the presigned PUT URL of the result
 * (which expires with the build, urlSeconds, and which the jobs bucket honours only through the
 * grading VPC's S3 endpoint), and the job with its test cases and a key made for this job alone,
 * which the harness signs its result with. The result is read only once the build has ended, and
 * accepted only as acceptHarnessResult says (size, the job's signature, shape, the job's test cases).
 */
async function buildJob(
  sandbox: SandboxLocation,
  checkout: { readonly folder: string; readonly submission: string },
  image: string,
  job: HarnessJob,
  options: BuildOptions,
): Promise<BuildOutcome> {
  const { S3Client, PutObjectCommand, GetObjectCommand, DeleteObjectCommand } = await import('@aws-sdk/client-s3');
  const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
  const { CodeBuildClient, StartBuildCommand, BatchGetBuildsCommand, StopBuildCommand } = await import('@aws-sdk/client-codebuild');
  // No checksum parameters in presigned URLs: the build uploads with plain curl, and presigned uploads carry none.
  s3 ??= new S3Client({ requestChecksumCalculation: 'WHEN_REQUIRED' });
  codebuild ??= new CodeBuildClient({});

  const timeoutMinutes = buildTimeoutMinutes(job.testCases);
  const started = await codebuild.send(new StartBuildCommand(startBuildInput(sandbox.project, image, timeoutMinutes)));
  const buildId = started.build?.id;
  const buildArn = started.build?.arn;
  if (!buildId || !buildArn) throw new Error('CodeBuild started no build');
  const keys = jobKeys(buildArn);
  const input = { Bucket: sandbox.bucket, Key: keys.input };
  const output = { Bucket: sandbox.bucket, Key: keys.result };
  let ended = false;
  try {
    const expiresIn = urlSeconds(timeoutMinutes, options.deadline);
    const resultKey = newResultKey();
    const archive = await jobArchive(
      checkout.folder,
      checkout.submission,
      { ...job, resultKey },
      {
        harness: await harnessObject(s3, sandbox),
        resultUrl: await getSignedUrl(s3, new PutObjectCommand({ ...output, ContentType: 'application/json' }), { expiresIn }),
      },
    );
    await s3.send(new PutObjectCommand({ ...input, Body: archive, ContentType: 'application/gzip' }));

    for (;;) {
      options.signal?.throwIfAborted();
      const { builds } = await codebuild.send(new BatchGetBuildsCommand({ ids: [buildId] }));
      const build = builds?.[0];
      if (build?.buildComplete) {
        ended = true;
        if (build.buildStatus !== 'SUCCEEDED') {
          return {
            kind: 'failed',
            message: `The grading sandbox ended without a result (${String(build.buildStatus).toLowerCase()}); your instructor has been told.`,
          };
        }
        // Without s3:ListBucket a missing object reads as AccessDenied: either way, no result.
        const answer = await s3.send(new GetObjectCommand(output)).catch((error: { name?: string }) => {
          if (error.name === 'NoSuchKey' || error.name === 'AccessDenied') return undefined;
          throw error;
        });
        if (!answer?.Body)
          return { kind: 'failed', message: 'The grading sandbox finished without a result; your instructor has been told.' };
        if ((answer.ContentLength ?? 0) > MAX_RESULT_BYTES) {
          (answer.Body as { destroy?: () => void }).destroy?.();
          return { kind: 'failed', message: refusedMessage(`it is larger than ${MAX_RESULT_BYTES / 1024 / 1024} MiB`) };
        }
        try {
          return { kind: 'result', result: acceptHarnessResult(await answer.Body.transformToByteArray(), job.testCases, resultKey) };
        } catch (error) {
          if (error instanceof ResultRefused) return { kind: 'failed', message: refusedMessage(error.message) };
          throw error;
        }
      }
      if (Date.now() + POLL_MS >= options.deadline) {
        const waiting = build?.currentPhase === 'QUEUED' || build?.currentPhase === 'SUBMITTED' || build?.currentPhase === 'PROVISIONING';
        return {
          kind: 'failed',
          message: waiting
            ? 'The grading sandbox did not start in time; submitting again retries it.'
            : 'The grading sandbox did not finish in time and was stopped; submitting again retries it.',
        };
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    // A build the worker no longer waits for (out of time, or its input never put) is stopped.
    if (!ended) await codebuild.send(new StopBuildCommand({ id: buildId })).catch(() => undefined);
    await Promise.all([s3.send(new DeleteObjectCommand(input)), s3.send(new DeleteObjectCommand(output))]).catch(() => undefined);
  }
}

/** The bundled harness (an object of the CDK assets bucket), read once per warm worker. */
async function harnessObject(s3: import('@aws-sdk/client-s3').S3Client, sandbox: SandboxLocation): Promise<Uint8Array> {
  const { GetObjectCommand } = await import('@aws-sdk/client-s3');
  const cacheKey = `${sandbox.harness.bucket}/${sandbox.harness.key}`;
  if (harness?.key !== cacheKey) {
    const answer = await s3.send(new GetObjectCommand({ Bucket: sandbox.harness.bucket, Key: sandbox.harness.key }));
    if (!answer.Body) throw new Error(`The harness s3://${cacheKey} is empty`);
    harness = { key: cacheKey, bytes: await answer.Body.transformToByteArray() };
  }
  return harness.bytes;
}

let s3: import('@aws-sdk/client-s3').S3Client | undefined;
let codebuild: import('@aws-sdk/client-codebuild').CodeBuildClient | undefined;
let harness: { readonly key: string; readonly bytes: Uint8Array } | undefined;
