import { mkdir, mkdtemp, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StartBuildCommandInput } from '@aws-sdk/client-codebuild';
import { setting } from '#shared/environment.ts';
import { END_OF_JOBS, jobKeys } from './input.ts';
import { checkoutOrFailure } from '../checkout/checkout.ts';
import { removeFolder } from '../checkout/files.ts';
import type { HarnessJob, HarnessResult } from '../harness/protocol.ts';
import { acceptHarnessResult, MAX_RESULT_BYTES, newResultKey, ResultRefused } from '../harness/result.ts';
import type { RunHooks, RunRequest, RunResult } from '../runner-protocol.ts';
import { ecrImage } from './images.ts';

export type { SandboxLocation };

/** Between two asks whether a build is still running. */
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

/** One job for a build: what to grade, and what to do with the outcome. */
export interface BuildJob {
  readonly request: RunRequest;
  /** Reports the commit the checkout resolved, before anything runs; throwing drops the job (its lease runs out, it is retried). */
  readonly onCheckout?: RunHooks['onCheckout'];
  /** Records the outcome (errors are logged by the caller's logger, never stop the build's other jobs). */
  readonly complete: (result: RunResult) => Promise<void>;
}

export interface SessionOptions {
  /** When the worker must have recorded every outcome: no build waited for beyond it. */
  readonly deadline: number;
  /** The next queued job, or undefined when there is none (or no time for one). */
  readonly next: () => Promise<BuildJob | undefined>;
  /** Told of a job dropped because of a fault of its own (a lost lease): the others go on. */
  readonly onDropped?: (error: unknown) => void;
  /** The most jobs one build runs (none: no limit); further jobs go to a fresh build. */
  readonly jobsPerBuild?: number;
  /** Told a job's time in its build (from its predecessor's result to its own, when it was waiting there). */
  readonly onJobSeconds?: (seconds: number) => void;
  /**
   * Asked, as a build begins a job and before a queued job is claimed for it, whether it takes
   * one more (given the seconds since the build was asked for); false ends the build after its
   * job. None: it always does.
   */
  readonly takesNext?: (elapsedSeconds: number) => Promise<boolean>;
}

/** Between two looks at a running build, and between two looks for a job's result. */
const RESULT_POLL_MS = 250;
/** A build whose start is refused for the project's concurrent build limit is asked for again this long. */
const START_RETRY_MS = 60_000;

/** A job checked out and staged, ready to be put into a build as often as it must. */
interface Staged {
  readonly job: BuildJob;
  readonly image: string;
  readonly folder: string;
  readonly harnessJob: HarnessJob & { readonly resultKey: string };
  readonly commit: string | undefined;
  /** Where it was put last: a build and the slot it has there. */
  placed?: { readonly build: LiveBuild; readonly slot: number };
  /** Builds that died running it. */
  deaths: number;
}

interface LiveBuild {
  readonly id: string;
  readonly arn: string;
  readonly image: string;
  /** Its image as CodeBuild reported the build's environment when it started it; null if it reported none. */
  readonly reportedImage: string | null;
  readonly timeoutMinutes: number;
  /** When it was asked for (Date.now()): CodeBuild bills it from then. */
  readonly askedAt: number;
  /** The next slot to put a job (or the end) in. */
  nextSlot: number;
  /** The worker put END_OF_JOBS in `nextSlot - 1`: it ends on its own after its jobs. */
  ending: boolean;
  /** CodeBuild says it is over. */
  over: boolean;
  /** CodeBuild said its machine is provisioned (a phase after PROVISIONING). */
  up?: boolean;
  /** When its last job's result was read. */
  lastResultAt?: number;
  /** Objects put into it that no job's own clean-up deletes (the end marker): deleted once it is over. */
  readonly leftovers: string[];
}

type Outcome =
  { kind: 'result'; result: HarnessResult } | { kind: 'refused'; message: string } | { kind: 'died'; status: string } | { kind: 'late' };

const refusedMessage = (reason: string) =>
  `The grading sandbox's result was refused (${reason}); nothing was graded and your instructor has been told.`;

/**
 * Grades `first`, then every job `options.next` gives, in as few CodeBuild builds as it can: a
 * build takes one job after another (each in fresh sandboxes inside it, as locally) until there is
 * none, so a deadline rush pays one start-up per build, not per job. Each job is checked out here
 * in the worker (network, no student code) at its commit or the default branch's head, its commit
 * reported (`onCheckout`), and staged; while a build runs a job, the next is claimed, checked out
 * and put into the build's next slot, so the build goes on at once. Jobs are taken in queue order;
 * a job asking for another image than the build's ends that build and starts one with its image.
 * A build that dies (ends without the result of the job it runs) is replaced and its job retried
 * once; a second death fails the job with a message, as does a refused result (see acceptHarnessResult).
 */
export async function runJobsInCodeBuild(sandbox: SandboxLocation, first: BuildJob, options: SessionOptions): Promise<void> {
  const clients = await awsClients();
  const pending: Staged[] = [];
  let build: LiveBuild | undefined;
  const builds: LiveBuild[] = [];
  let exhausted = false;

  /** The next job that is ready to run (checked out), or undefined when there is none. */
  const nextStaged = async (): Promise<Staged | undefined> => {
    while (!exhausted) {
      const job = await options.next();
      if (!job) {
        exhausted = true;
        return undefined;
      }
      try {
        const staged = await stage(sandbox, job);
        if (staged) return staged;
      } catch (error) {
        options.onDropped?.(error);
      }
    }
    return undefined;
  };

  try {
    const staged = (await stage(sandbox, first)) ?? (await nextStaged());
    if (staged) pending.push(staged);
    for (let current = pending[0]; current; current = pending[0]) {
      if (Date.now() >= options.deadline) {
        await finish(current, {
          status: 'sandbox-failed',
          message: 'The grading sandbox did not start in time; submitting again retries it.',
        });
        continue;
      }
      if (!build || build.over || build.ending || build.image !== current.image) {
        if (build && !build.over && !build.ending) await endBuild(clients, sandbox, build);
        build = await startBuild(clients, sandbox, current.image, options.deadline);
        builds.push(build);
      }
      const running = build;
      const waiting = current.placed?.build === running;
      if (!waiting) await place(clients, sandbox, running, current, options.deadline);
      // The build's next slot: the following job, when it is ready and wants this image; else the end.
      // A queued job is claimed for the build only once its machine is up: while it is provisioning,
      // the job stays in the queue for a build that is up already (or comes up sooner).
      const following = (async () => {
        if (!pending[1]) await machineUp(clients, running, options.deadline);
        const takes = pending[1] !== undefined || (await (options.takesNext?.((Date.now() - running.askedAt) / 1000) ?? true));
        const next = pending[1] ?? (takes ? await nextStaged() : undefined);
        if (next && !pending.includes(next)) pending.push(next);
        const room = running.nextSlot <= (options.jobsPerBuild ?? Infinity);
        if (next && next.image === running.image && room && Date.now() < options.deadline)
          await place(clients, sandbox, running, next, options.deadline);
        else await endBuild(clients, sandbox, running);
      })();
      const outcome = await awaitResult(clients, sandbox, running, current, options.deadline);
      await following.catch((error: unknown) => {
        // Nothing could be put into the build's next slot: it ends once it waited for it in vain.
        running.ending = true;
        options.onDropped?.(error);
      });
      await settle({ clients, running, current, outcome, waiting, options, finish });
    }
  } finally {
    // Jobs never run (a fault of the worker) keep their leases: they are taken over once those run out.
    if (build && !build.over && !build.ending) await stopBuild(clients, build);
    await Promise.all(pending.map((staged) => removeFolder(staged.folder)));
    await clearBuilds(clients, sandbox, builds, Math.min(options.deadline, Date.now() + END_WAIT_MS));
  }

  async function finish(staged: Staged, result: RunResult): Promise<void> {
    pending.splice(pending.indexOf(staged), 1);
    await removeFolder(staged.folder);
    await staged.job.complete(result);
  }
}

/**
 * Ends the job a build ran as its outcome says: its result recorded, or its failure (the build
 * stopped when it cannot go on); a job whose build died for the first time stays pending, to run
 * again in a new build.
 */
async function settle(ran: {
  clients: Awaited<ReturnType<typeof awsClients>>;
  running: LiveBuild;
  current: Staged;
  outcome: Outcome;
  /** Whether the job waited in the build's next slot (its time, from the previous result, is the job's own). */
  waiting: boolean;
  options: SessionOptions;
  finish: (staged: Staged, result: RunResult) => Promise<void>;
}): Promise<void> {
  const { clients, running, current, outcome, options, finish } = ran;
  if (outcome.kind === 'died') {
    running.over = true;
    current.deaths++;
    if (current.deaths < 2) return;
    await finish(current, {
      status: 'sandbox-failed',
      message: `The grading sandbox ended without a result twice (${outcome.status.toLowerCase()}); your instructor has been told.`,
    });
  } else if (outcome.kind === 'late') {
    await stopBuild(clients, running);
    await finish(current, {
      status: 'sandbox-failed',
      message: 'The grading sandbox did not finish in time and was stopped; submitting again retries it.',
    });
  } else if (outcome.kind === 'refused') {
    // Something other than the harness answered: this build takes no further job.
    await stopBuild(clients, running);
    await finish(current, { status: 'sandbox-failed', message: outcome.message });
  } else {
    if (ran.waiting && running.lastResultAt !== undefined) options.onJobSeconds?.((Date.now() - running.lastResultAt) / 1000);
    running.lastResultAt = Date.now();
    await finish(current, {
      status: 'graded',
      testCases: outcome.result.testCases,
      ...(current.commit ? { commit: current.commit } : {}),
      build: { arn: running.arn, image: running.reportedImage },
    });
  }
}

/**
 * Checks the job out and stages its files and job for the archive; undefined when it is done
 * already (the image is not offered, the checkout failed: its outcome is recorded).
 */
async function stage(sandbox: SandboxLocation, job: BuildJob): Promise<Staged | undefined> {
  const { request } = job;
  const image = sandbox.images[request.image ?? 'default'];
  if (!image) {
    const offered = Object.keys(sandbox.images).join(', ');
    await job.complete({
      status: 'sandbox-unavailable',
      message: `The gradeable asks for the image "${request.image}", which this deployment does not offer (offered: ${offered}).`,
    });
    return undefined;
  }
  const folder = await mkdtemp(join(tmpdir(), 'grading-job-'));
  try {
    const checkout = await checkoutOrFailure(request, undefined, folder);
    if ('status' in checkout) {
      await removeFolder(folder);
      await job.complete(checkout);
      return undefined;
    }
    if (checkout.commit) await job.onCheckout?.(checkout.commit);
    const harnessJob = {
      testCases: request.testCases,
      maxOutputBytes: request.limits.maxOutputBytes,
      isolation: 'container' as const,
      resultKey: newResultKey(),
    };
    const staging = join(folder, 'archive');
    await mkdir(staging);
    await rename(checkout.submission, join(staging, 'files'));
    await writeFile(join(staging, 'job.json'), JSON.stringify(harnessJob));
    return { job, image, folder, harnessJob, commit: checkout.commit, deaths: 0 };
  } catch (error) {
    await removeFolder(folder);
    throw error;
  }
}

/**
 * A gzipped tar of `files/…` (the submission's regular files and folders only) and `job.json`,
 * which the build unpacks as the grader, and `harness.mjs` and `result-url`, which it unpacks as
 * root for itself (0600: the grader never reads them).
 */
async function jobArchive(staging: string, extras: { readonly harness: Uint8Array; readonly resultUrl: string }): Promise<Buffer> {
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

/** A build that takes jobs until the worker's deadline: its time limit is the time left, 5 to 480 minutes. */
export function sessionTimeoutMinutes(deadline: number, now = Date.now()): number {
  return Math.min(480, Math.max(5, Math.ceil((deadline - now) / 60_000)));
}

/**
 * How long the job's presigned URLs stay valid: no longer than the build's own time limit, nor
 * past the moment the worker stops waiting for it (it then stops the build and deletes the objects).
 */
export function urlSeconds(timeoutMinutes: number, deadline: number, now = Date.now()): number {
  return Math.max(1, Math.min(timeoutMinutes * 60, Math.floor((deadline - now) / 1000)));
}

/**
 * What the worker asks CodeBuild for: the project, the image, the time limit. Nothing else: the
 * request is what BatchGetBuilds, the console and CloudTrail's StartBuild record show, so it holds
 * no URL, key or credential; the build finds its inputs by its own ARN (see input.ts).
 */
export function startBuildInput(project: string, image: string, timeoutMinutes: number): StartBuildCommandInput {
  return {
    projectName: project,
    imageOverride: image,
    // An ECR image is pulled with the build's role (which may read the deployment's grading repositories only).
    imagePullCredentialsTypeOverride: ecrImage(image) ? 'SERVICE_ROLE' : 'CODEBUILD',
    environmentTypeOverride: /aarch64|arm/.test(image) ? 'ARM_CONTAINER' : 'LINUX_CONTAINER',
    timeoutInMinutesOverride: timeoutMinutes,
  };
}

type Clients = Awaited<ReturnType<typeof awsClients>>;

/** How long one S3 or CodeBuild request of the worker may take (a job's input is a few MB at most). */
const REQUEST_TIMEOUT_MS = 60_000;

/**
 * The worker's S3 and CodeBuild clients. A request with no answer fails after `requestTimeoutMs`
 * (and is retried as the SDK retries): without it the SDK only logs a warning and the worker
 * would wait for ever, holding its wake-up, its build and its jobs' leases.
 */
export async function sandboxClients(requestTimeoutMs = REQUEST_TIMEOUT_MS) {
  const s3Module = await import('@aws-sdk/client-s3');
  const codebuildModule = await import('@aws-sdk/client-codebuild');
  const requestHandler = { requestTimeout: requestTimeoutMs, throwOnRequestTimeout: true };
  return {
    // No checksum parameters in presigned URLs: the build uploads with plain curl, and presigned uploads carry none.
    s3: new s3Module.S3Client({ requestChecksumCalculation: 'WHEN_REQUIRED', requestHandler }),
    codebuild: new codebuildModule.CodeBuildClient({ requestHandler }),
  };
}

async function awsClients() {
  const s3Module = await import('@aws-sdk/client-s3');
  const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
  const codebuildModule = await import('@aws-sdk/client-codebuild');
  if (!s3 || !codebuild) ({ s3, codebuild } = await sandboxClients());
  return { s3: s3, codebuild: codebuild, s3Module, codebuildModule, getSignedUrl };
}

/**
 * A fresh build, started first for CodeBuild to name it: its jobs' inputs go under its ARN, the
 * objects of the jobs bucket its role may read (it waits for each).
 */
async function startBuild(clients: Clients, sandbox: SandboxLocation, image: string, deadline: number): Promise<LiveBuild> {
  const timeoutMinutes = sessionTimeoutMinutes(deadline);
  const giveUp = Date.now() + START_RETRY_MS;
  for (;;) {
    const askedAt = Date.now();
    try {
      const started = await clients.codebuild.send(
        new clients.codebuildModule.StartBuildCommand(startBuildInput(sandbox.project, image, timeoutMinutes)),
      );
      const id = started.build?.id;
      const arn = started.build?.arn;
      if (!id || !arn) throw new Error('CodeBuild started no build');
      // The image as CodeBuild reports the build's environment, not as asked: what a grading record says ran.
      const reportedImage = started.build?.environment?.image ?? null;
      return { id, arn, image, reportedImage, timeoutMinutes, askedAt, nextSlot: 1, ending: false, over: false, leftovers: [] };
    } catch (error) {
      // A build of this worker's that just ended may still count towards the project's limit.
      if ((error as { name?: string }).name !== 'AccountLimitExceededException' || Date.now() > giveUp) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/**
 * Puts the job into the build's next slot. The input carries the harness, the presigned PUT URL of
 * the result (which expires with the build, urlSeconds, and which the jobs bucket honours only
 * through the grading VPC's S3 endpoint), and the job with its test cases and a key made for this
 * job alone, which the harness signs its result with.
 */
async function place(clients: Clients, sandbox: SandboxLocation, build: LiveBuild, staged: Staged, deadline: number): Promise<void> {
  // Put into a build before that is over now (it died, or was stopped): its input there goes.
  if (staged.placed) await deleteObjects(clients, sandbox, [jobKeys(staged.placed.build.arn, staged.placed.slot).input]);
  const slot = build.nextSlot++;
  const keys = jobKeys(build.arn, slot);
  const { PutObjectCommand } = clients.s3Module;
  const expiresIn = urlSeconds(build.timeoutMinutes, deadline);
  const archive = await jobArchive(join(staged.folder, 'archive'), {
    harness: await harnessObject(clients.s3, sandbox),
    resultUrl: await clients.getSignedUrl(
      clients.s3,
      new PutObjectCommand({ Bucket: sandbox.bucket, Key: keys.result, ContentType: 'application/json' }),
      { expiresIn },
    ),
  });
  staged.placed = { build, slot };
  await clients.s3.send(new PutObjectCommand({ Bucket: sandbox.bucket, Key: keys.input, Body: archive, ContentType: 'application/gzip' }));
}

/** Tells the build it has no further job: it ends once the jobs it has are done. */
async function endBuild(clients: Clients, sandbox: SandboxLocation, build: LiveBuild): Promise<void> {
  if (build.ending || build.over) return;
  build.ending = true;
  const key = jobKeys(build.arn, build.nextSlot++).input;
  build.leftovers.push(key);
  await clients.s3.send(new clients.s3Module.PutObjectCommand({ Bucket: sandbox.bucket, Key: key, Body: END_OF_JOBS }));
}

/** How long the worker waits, after its last job, for its builds to end before it deletes their end markers anyway. */
const END_WAIT_MS = 60_000;

async function deleteObjects(clients: Clients, sandbox: SandboxLocation, keys: readonly string[]): Promise<void> {
  const { DeleteObjectCommand } = clients.s3Module;
  await Promise.all(keys.map((Key) => clients.s3.send(new DeleteObjectCommand({ Bucket: sandbox.bucket, Key })))).catch(() => undefined);
}

/** Waits (until `until`) for the builds told to end to be over, then deletes what is left of them (their end markers). */
async function clearBuilds(clients: Clients, sandbox: SandboxLocation, builds: readonly LiveBuild[], until: number): Promise<void> {
  const { BatchGetBuildsCommand } = clients.codebuildModule;
  for (;;) {
    const running = builds.filter((build) => !build.over && build.leftovers.length > 0);
    if (running.length === 0 || Date.now() >= until) break;
    const answer = await clients.codebuild
      .send(new BatchGetBuildsCommand({ ids: running.map((build) => build.id) }))
      .catch(() => undefined);
    for (const build of running) if (answer?.builds?.some((status) => status.id === build.id && status.buildComplete)) build.over = true;
    if (running.some((build) => !build.over)) await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  await deleteObjects(
    clients,
    sandbox,
    builds.flatMap((build) => build.leftovers),
  );
}

/** Phases of a build whose machine is not running it yet. */
const STARTING_PHASES = new Set(['SUBMITTED', 'QUEUED', 'PROVISIONING']);
/** Between two asks whether a build's machine is up. */
const UP_POLL_MS = 1_000;

/** Waits until the build's machine is up (or the build is over, or the deadline). */
async function machineUp(clients: Clients, build: LiveBuild, deadline: number): Promise<void> {
  while (!build.up && !build.over && Date.now() + UP_POLL_MS < deadline) {
    const answer = await clients.codebuild
      .send(new clients.codebuildModule.BatchGetBuildsCommand({ ids: [build.id] }))
      .catch(() => undefined);
    const status = answer?.builds?.[0];
    if (status?.buildComplete) return;
    if (status && !STARTING_PHASES.has(String(status.currentPhase))) build.up = true;
    else await new Promise((resolve) => setTimeout(resolve, UP_POLL_MS));
  }
}

async function stopBuild(clients: Clients, build: LiveBuild): Promise<void> {
  if (build.over) return;
  build.over = true;
  await clients.codebuild.send(new clients.codebuildModule.StopBuildCommand({ id: build.id })).catch(() => undefined);
}

/**
 * Waits for the result of the job in `staged`'s slot: read as soon as it is there (the build goes
 * on with its next job meanwhile), accepted only as acceptHarnessResult says (size, the job's
 * signature, shape, the job's test cases). A build that ends without it died.
 */
async function awaitResult(
  clients: Clients,
  sandbox: SandboxLocation,
  build: LiveBuild,
  staged: Staged,
  deadline: number,
): Promise<Outcome> {
  const { GetObjectCommand, DeleteObjectCommand } = clients.s3Module;
  if (!staged.placed) throw new Error('A job is waited for before it was put into a build');
  const keys = jobKeys(build.arn, staged.placed.slot);
  const output = { Bucket: sandbox.bucket, Key: keys.result };
  const readResult = () =>
    // Without s3:ListBucket a missing object reads as AccessDenied: either way, no result yet.
    clients.s3.send(new GetObjectCommand(output)).catch((error: { name?: string }) => {
      if (error.name === 'NoSuchKey' || error.name === 'AccessDenied') return undefined;
      throw error;
    });
  try {
    let lastLook = Date.now();
    for (;;) {
      let answer = await readResult();
      if (!answer?.Body && Date.now() - lastLook >= POLL_MS) {
        lastLook = Date.now();
        const { builds } = await clients.codebuild.send(new clients.codebuildModule.BatchGetBuildsCommand({ ids: [build.id] }));
        const status = builds?.[0];
        if (status?.buildComplete) {
          build.over = true;
          // Its result may have landed just before it ended.
          answer = await readResult();
          if (!answer?.Body) return { kind: 'died', status: String(status.buildStatus ?? 'FAILED') };
        }
      }
      if (answer?.Body) {
        if ((answer.ContentLength ?? 0) > MAX_RESULT_BYTES) {
          (answer.Body as { destroy?: () => void }).destroy?.();
          return { kind: 'refused', message: refusedMessage(`it is larger than ${MAX_RESULT_BYTES / 1024 / 1024} MiB`) };
        }
        try {
          return {
            kind: 'result',
            result: acceptHarnessResult(await answer.Body.transformToByteArray(), staged.harnessJob.testCases, staged.harnessJob.resultKey),
          };
        } catch (error) {
          if (error instanceof ResultRefused) return { kind: 'refused', message: refusedMessage(error.message) };
          throw error;
        }
      }
      if (Date.now() + RESULT_POLL_MS >= deadline) return { kind: 'late' };
      await new Promise((resolve) => setTimeout(resolve, RESULT_POLL_MS));
    }
  } finally {
    await Promise.all([
      clients.s3.send(new DeleteObjectCommand({ Bucket: sandbox.bucket, Key: keys.input })),
      clients.s3.send(new DeleteObjectCommand(output)),
    ]).catch(() => undefined);
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
