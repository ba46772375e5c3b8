import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Course } from '#shared/courses/course.ts';
import { getItems } from '#shared/data/items.ts';
import { queueRef } from '#shared/data/jobs.ts';
import { queuedJobs } from '#shared/grading/builds/policy.ts';
import { submissionsOfGradeable } from '#shared/data/submissions.ts';
import type { TestCase } from '#shared/gradeables/gradeable.ts';
import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { handler as gradingWorker } from '#functions/grading-worker/handler.ts';
import { runAsFunction } from '#shared/environment.ts';
import { useLocalQueue } from '#shared/queue/wake-ups.ts';
import { GRADING_WORKER_FUNCTION } from '#infra/function-access.ts';
import { localFunctionScope } from '#infra/local/functions.ts';
import { startLocalSqsQueue } from '#infra/local/sqs-queue.ts';
import { DEFAULT_GRADING_CONCURRENCY } from '#infra/aws/settings.ts';
import { addMember } from '../test/support/courses.ts';
import { createUser, type TestUser } from '../test/support/users.ts';
import { deploy, synthesize, type DeployedStack } from '../test/deployed/deployment.ts';
import { sessionArn } from '../test/deployed/iam.ts';
import { progress, quantile, sleep, type Row, type SectionResult } from './common.ts';
import { createWorld, invoke, request, sessionToken, vcsGradeable } from './world.ts';

const SECTION = 'Turnaround in AWS';
const STUDENTS = Number(process.env.BENCH_TURNAROUND_STUDENTS ?? 300);
/** The test cases' own time, in real seconds. */
const CASE_SECONDS = 5;
/**
 * The bench runs at this fraction of real time (start-ups, the emulated hosts' work and the test
 * cases' sleep alike) and reports in real-time units. The machine's own work (the worker, the
 * queue, DynamoDB Local, the emulated S3 and CodeBuild) is not scaled, so below 1 it weighs
 * 1/SCALE times more than it would.
 */
const SCALE = Number(process.env.BENCH_TURNAROUND_SCALE ?? 1);
const CONCURRENCY = DEFAULT_GRADING_CONCURRENCY;

/**
 * Start-up (StartBuild to the build's first command), in real seconds. AWS publishes no figure for
 * on-demand EC2 builds: their machines are provisioned per build and destroyed after it, while a
 * reserved capacity fleet's machines "remain idle, ready to process builds or tests immediately"
 * (CodeBuild user guide, "Run builds on reserved capacity fleets"). Reported PROVISIONING times of
 * on-demand builds are about a minute (at least one minute in cdk-github-runners discussion 260;
 * 180–190 s for ARM images in aws-codebuild-docker-images issue 793), so on-demand start-ups are
 * drawn uniformly from 30–90 s, and a fleet's from 1–3 s (its container start only).
 */
const STARTUPS = {
  'on-demand': { low: 30, high: 90 },
  'reserved fleet': { low: 1, high: 3 },
  calibration: { low: 0, high: 0 },
} as const;
type Fleet = keyof typeof STARTUPS;

/** The real-sandbox run that measures a job's own work in a build (its test case sleeps this long). */
const CALIBRATION = { jobs: 5, caseSeconds: 3 };

/**
 * What is measured at STUDENTS at once, with emulated build hosts: builds take queued jobs on
 * demand and on a fleet; with BENCH_TURNAROUND_BEFORE=1 also the design before (a fresh build for
 * every job, as GRADING_JOBS_PER_BUILD=1 runs it: 15 waves of start-ups at 300, about 20 minutes).
 */
type Run = { readonly name: string; readonly fleet: Fleet; readonly jobsPerBuild: string };
/** BENCH_TURNAROUND_ONLY=on-demand or 'reserved fleet': that run alone. */
const RUNS: readonly Run[] = (
  [
    ...(process.env.BENCH_TURNAROUND_BEFORE === '1'
      ? [{ name: 'on-demand, a build per job (before)', fleet: 'on-demand' as const, jobsPerBuild: '1' }]
      : []),
    { name: 'on-demand, builds take queued jobs', fleet: 'on-demand', jobsPerBuild: '100' },
    { name: 'reserved fleet, builds take queued jobs', fleet: 'reserved fleet', jobsPerBuild: '100' },
  ] satisfies Run[]
).filter(({ fleet }) => !process.env.BENCH_TURNAROUND_ONLY || process.env.BENCH_TURNAROUND_ONLY === fleet);

export async function measureTurnaround(): Promise<SectionResult> {
  const rows: Row[] = [];
  const notes: string[] = [];
  if (process.getuid?.() !== 0) {
    notes.push('- Turnaround: skipped; the real-sandbox calibration build needs root.');
    return { rows, notes };
  }
  progress('turnaround: synthesizing the stack (the deployed-artifact test’s assembly)');
  const outdir = process.env.BENCH_TURNAROUND_CDK_OUT ?? (await mkdtemp(join(tmpdir(), 'turnaround-cdk-')));
  // BENCH_TURNAROUND_CDK_OUT + BENCH_TURNAROUND_STACK: an assembly synthesized before (the deployed-artifact test's).
  const stackName = process.env.BENCH_TURNAROUND_STACK ?? 'Turnaround';
  let fleet: Fleet = 'calibration';
  /** A job's own work in a build besides its test cases, measured with the real sandbox (ms, real time). */
  let jobOverheadMs: number | undefined;
  /** The start-ups drawn for the builds of the run under way, real seconds. */
  let drawnStartups: number[] = [];
  const saved = { ...process.env };
  let stack: DeployedStack | undefined;
  try {
    if (!process.env.BENCH_TURNAROUND_CDK_OUT) synthesize(outdir, stackName, {});
    stack = await deploy(outdir, stackName, {
      dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT!,
      buildStartupDelayMs: () => {
        const { low, high } = STARTUPS[fleet];
        const startup = low + Math.random() * (high - low);
        drawnStartups.push(startup);
        return startup * 1000 * SCALE;
      },
      // Builds of the 300-at-once runs: hosts emulated in wall-clock time (20 build machines cannot be two shared cores).
      emulatedBuildHost: () =>
        jobOverheadMs === undefined ? undefined : { jobMs: (job) => (job.testCases.length * CASE_SECONDS * 1000 + jobOverheadMs!) * SCALE },
    });
    // The real worker's code, here, with its role's credentials and the deployment's sandbox.
    const worker = stack.deployment.functions.find((fn) => /^GradingWorker/.test(fn.logicalId));
    if (!worker) throw new Error('bench: the template has no grading worker');
    const credentials = stack.endpoint.issueCredentials({
      label: worker.logicalId,
      arn: sessionArn(worker.role, worker.name),
      role: worker.role,
    });
    const sandbox = Object.fromEntries(
      ['GRADING_PROJECT', 'GRADING_BUCKET', 'GRADING_HARNESS', 'GRADING_IMAGES'].map((name) => [name, worker.environment[name] ?? '']),
    );
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_S3: stack.endpoint.url,
      AWS_ENDPOINT_URL_CODEBUILD: stack.endpoint.url,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_SESSION_TOKEN: credentials.sessionToken,
      AWS_REGION: 'us-east-1',
      AWS_EC2_METADATA_DISABLED: 'true',
    });

    const world = await createWorld({ submit: false });
    const students = await Promise.all(
      Array.from({ length: STUDENTS }, async () => {
        const user = await createUser('user', 'turnaround');
        await addMember(world.course, user, 4, '1');
        return { user, token: await sessionToken(user.userId) };
      }),
    );

    // A few jobs through one real build (real containers, the real harness and its sandboxes), one
    // after another: the time between two results, less the test case's, is a job's own work in a build.
    process.env.GRADING_JOBS_PER_BUILD = '100';
    await uploadGradeable(world.course, slowGradeable('calibration', CALIBRATION.caseSeconds));
    progress(`turnaround: calibrating a job's own work with the real sandbox (${CALIBRATION.jobs} jobs, one build)`);
    const calibration = await rush(stack, world.course, 'calibration', students.slice(0, CALIBRATION.jobs), sandbox, 1);
    if (calibration.failed > 0) throw new Error(`bench: the calibration build did not grade: ${calibration.problem}`);
    const sorted = calibration.doneAt.toSorted((a, b) => a - b);
    const gaps = sorted.slice(1).map((at, index) => at - sorted[index]!);
    jobOverheadMs = Math.max(0, quantile(gaps, 0.5) / SCALE - CALIBRATION.caseSeconds * 1000);
    progress(`turnaround: a job's own work in a build: ${(jobOverheadMs / 1000).toFixed(2)} s besides its test cases`);
    notes.push(
      `- Turnaround: a job's own work in a build besides its test cases (fetching its input, unpacking, the harness and its sandboxes, putting the result), measured with the real sandbox in one build on this machine: ${(jobOverheadMs / 1000).toFixed(2)} s (median gap between ${CALIBRATION.jobs} consecutive results, less the test case's ${CALIBRATION.caseSeconds} s). The ${STUDENTS}-at-once runs emulate each build host as ${CASE_SECONDS} s + that per job.`,
    );

    const idealSeconds = (startup: number) => (STUDENTS * CASE_SECONDS) / CONCURRENCY + startup;
    for (const [index, { name: which, fleet: startups, jobsPerBuild }] of RUNS.entries()) {
      fleet = startups;
      process.env.GRADING_JOBS_PER_BUILD = jobsPerBuild;
      const gradeableId = `slow-${index}`;
      await uploadGradeable(world.course, slowGradeable(gradeableId, CASE_SECONDS));
      progress(`turnaround: ${STUDENTS} submissions at once, ${which}, ${CONCURRENCY} builds at most`);
      drawnStartups = [];
      const run = await rush(stack, world.course, gradeableId, students, sandbox, CONCURRENCY);
      const { low, high } = STARTUPS[startups];
      const ideal = idealSeconds((low + high) / 2);
      const caseMinutes = (STUDENTS * CASE_SECONDS) / 60;
      // "1.5× the test cases' own time plus start-ups": the start-ups this run's builds drew, each once.
      const startupMinutes = drawnStartups.reduce((sum, each) => sum + each, 0) / 60;
      const billedTarget = 1.5 * caseMinutes + startupMinutes;
      const onFleet = startups === 'reserved fleet';
      // A fleet bills its machines' existence, not builds: its builds' minutes are what they occupied, unrounded.
      const minutes = onFleet ? run.occupiedMinutes : run.billedMinutes;
      const p50 = quantile(run.seconds, 0.5);
      const p95 = quantile(run.seconds, 0.95);
      const max = Math.max(...run.seconds);
      progress(
        `turnaround: ${which}: p50 ${s(p50)}, p95 ${s(p95)}, max ${s(max)}, ${run.builds} builds, ${minutes.toFixed(1)} build-minutes, ${run.failed} not graded; ideal ${s(ideal)}`,
      );
      const base = `ideal ${s(ideal)} (${STUDENTS} × ${CASE_SECONDS} s over ${CONCURRENCY} builds + a ${low}–${high} s start-up)`;
      rows.push(
        {
          section: SECTION,
          name: `${which}: p50 submit to result, ${STUDENTS} at once (p95 ${s(p95)})`,
          target: '≤ 2× ideal',
          baseline: base,
          measured: `${s(p50)}: ${(p50 / ideal).toFixed(2)}×`,
          met: run.failed === 0 && p50 <= 2 * ideal,
        },
        {
          section: SECTION,
          name: `${which}: max submit to result`,
          target: '≤ 1.5× ideal',
          baseline: base,
          measured: `${s(max)}: ${(max / ideal).toFixed(2)}×`,
          met: run.failed === 0 && max <= 1.5 * ideal,
        },
        {
          section: SECTION,
          name: onFleet
            ? `${which}: build-minutes the builds occupied the fleet's machines (not billed per build), ${run.builds} builds started`
            : `${which}: build-minutes billed (each build rounded up to a minute), ${run.builds} builds started`,
          target: `≤ 1.5× the test cases' ${caseMinutes.toFixed(0)} min + the ${run.builds} start-ups drawn (${startupMinutes.toFixed(1)} min) = ${billedTarget.toFixed(1)} min`,
          baseline: `test cases alone: ${caseMinutes.toFixed(0)} min`,
          measured: `${minutes.toFixed(onFleet ? 1 : 0)} min`,
          met: minutes <= billedTarget,
        },
      );
      if (run.failed > 0) notes.push(`- Turnaround (${which}): ${run.failed} of ${STUDENTS} submissions were not graded: ${run.problem}`);
    }
    const missed = rows.filter((row) => row.met === false);
    if (missed.length > 0) notes.push(`- Turnaround: missed: ${missed.map((row) => `${row.name}: ${row.measured}`).join('; ')}.`);
  } finally {
    await stack?.stop();
    for (const name of Object.keys(process.env)) if (!(name in saved)) Reflect.deleteProperty(process.env, name);
    Object.assign(process.env, saved);
    if (!process.env.BENCH_TURNAROUND_CDK_OUT) await rm(outdir, { recursive: true, force: true });
  }
  return { rows, notes };
}

interface Rush {
  /** Submit to result per submission, real-time seconds. */
  readonly seconds: number[];
  readonly failed: number;
  readonly problem: string;
  /** When each result was first seen stored (performance.now()). */
  readonly doneAt: number[];
  readonly builds: number;
  /** Each build from StartBuild to its end, rounded up to a minute (CodeBuild's on-demand billing), real-time minutes. */
  readonly billedMinutes: number;
  /** The same, not rounded. */
  readonly occupiedMinutes: number;
}

/** Everyone submits at once; each result's time is when it is first seen stored. */
async function rush(
  stack: DeployedStack,
  course: Course,
  gradeableId: string,
  students: readonly { user: TestUser; token: string }[],
  sandbox: Readonly<Record<string, string>>,
  concurrency: number,
): Promise<Rush> {
  const buildsBefore = new Set(stack.codebuild.buildTimes().map((build) => build.id));
  // The local grading queue's worker loops, each wake-up run as the deployed worker: its local
  // tables and grants, plus the deployment's sandbox variables (a local scope has none: it grades
  // in bubblewrap).
  const queue = startLocalSqsQueue<{ ticket: number }>({
    name: 'grading',
    functionName: GRADING_WORKER_FUNCTION,
    handler: (event) => {
      const scope = localFunctionScope(GRADING_WORKER_FUNCTION);
      return runAsFunction({ ...scope, variables: { ...scope.variables, ...sandbox } }, () => gradingWorker(event));
    },
    concurrency,
    visibilityTimeoutMs: 30_000,
    maxReceiveCount: 3,
    redeliverWhileRunning: true,
    connect: (send) => useLocalQueue(send && ((ticket) => send({ ticket }))),
  });
  const submitted = new Map<string, number>();
  const done = new Map<string, number>();
  let problem = '';
  let failed = 0;
  try {
    // As fast as the submission path takes them, 10 in flight at a time (more time out on a loaded machine).
    let index = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (index < students.length) {
          const student = students[index++]!;
          submitted.set(student.user.userId, performance.now());
          const answer = await invoke(
            'submit-vcs',
            request('POST', `/api/${course.term}/${course.course}/gradeable/${gradeableId}/upload`, {
              token: student.token,
              form: { user_id: student.user.userId, vcs_checkout: 'true', git_repo_id: 'none' },
            }),
          );
          if (answer.status !== 'success') throw new Error(`bench: submission failed: ${JSON.stringify(answer)}`);
        }
      }),
    );
    const limit = performance.now() + (20 * 60_000 * SCALE + 120_000);
    const started = performance.now();
    let told = started;
    while (done.size < students.length && performance.now() < limit) {
      if (performance.now() - told >= 10_000) {
        told = performance.now();
        progress(`turnaround:   ${await state(stack, queue.depth(), buildsBefore)}, ${done.size} done at ${s((told - started) / 1000)}`);
      }
      // Every 250 ms: reading every submission is work for DynamoDB Local on the same two cores.
      await sleep(250);
      const now = performance.now();
      for (const submission of await submissionsOfGradeable(course.term, course.course, gradeableId)) {
        const latest = submission.versions.at(-1);
        if (done.has(submission.ownerId) || !latest || (latest.state !== 'graded' && latest.state !== 'failed')) continue;
        done.set(submission.ownerId, now);
        if (latest.state !== 'graded' || latest.points !== 1) {
          failed++;
          problem ||= `${submission.ownerId}: ${latest.state}, ${latest.points} points (${latest.message ?? 'no message'})`;
        }
      }
    }
    await queue.idle();
  } finally {
    await queue.stop();
  }
  failed += students.length - done.size;
  const builds = stack.codebuild.buildTimes().filter((build) => !buildsBefore.has(build.id));
  const minutes = builds.map((build) => ((build.endTime ?? Date.now()) - build.startTime) / SCALE / 60_000);
  const billedMinutes = minutes.reduce((sum, each) => sum + Math.max(1, Math.ceil(each)), 0);
  const occupiedMinutes = minutes.reduce((sum, each) => sum + each, 0);
  return {
    seconds: [...done].map(([owner, at]) => (at - submitted.get(owner)!) / 1000 / SCALE),
    failed,
    problem: problem || `${students.length - done.size} not graded in time`,
    doneAt: [...done.values()],
    builds: builds.length,
    billedMinutes,
    occupiedMinutes,
  };
}

/** The queue, the wake-ups and the builds now: where a stalled run waits. */
async function state(stack: DeployedStack, wakeUps: number, before: ReadonlySet<string>): Promise<string> {
  const { queue } = await getItems({ queue: queueRef() });
  const queued = queuedJobs(queue);
  const running = stack.codebuild.buildTimes().filter((build) => !before.has(build.id) && build.endTime === undefined).length;
  return `${queued} jobs queued, ${wakeUps} wake-ups waiting or in flight, ${running} builds running`;
}

/** One test case that sleeps (no CPU) for `seconds`, scaled. */
function slowGradeable(id: string, seconds: number): Record<string, unknown> {
  const testCase: TestCase = {
    name: 'Takes its time',
    command: `sleep ${(seconds * SCALE).toFixed(2)}`,
    details: '',
    points_available: 1,
    is_extra_credit: false,
    is_hidden: false,
    timeout_seconds: 30,
    expect: { exit_code: 0 },
  };
  return { ...vcsGradeable(id), ta_grading: false, autograding: { test_cases: [testCase] } };
}

const s = (seconds: number) => `${seconds.toFixed(0)} s`;
