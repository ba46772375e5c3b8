import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Course } from '#shared/courses/course.ts';
import { submissionsOfGradeable } from '#shared/data/submissions.ts';
import type { TestCase } from '#shared/gradeables/gradeable.ts';
import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { handler as gradingWorker } from '#functions/grading-worker/handler.ts';
import { runAsFunction } from '#shared/environment.ts';
import { useLocalQueue } from '#shared/grading/queue.ts';
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
 * The bench runs at this fraction of real time (start-ups and the test cases' sleep alike) and
 * reports in real-time units. The machine's own work (checkouts, the harness, the emulator) is
 * not scaled, so it weighs 1/SCALE times more than it would.
 */
const SCALE = Number(process.env.BENCH_TURNAROUND_SCALE ?? 0.2);
const CONCURRENCY = DEFAULT_GRADING_CONCURRENCY;

/**
 * Start-up (StartBuild to the build's first command), in real seconds. AWS gives no figure for
 * on-demand EC2 builds: machines are provisioned per build and destroyed after it, while a reserved
 * capacity fleet's machines "remain idle, ready to process builds immediately" (CodeBuild user
 * guide, "Run builds on reserved capacity fleets"). Reported PROVISIONING times of on-demand builds
 * are about a minute (at least one minute in cdk-github-runners discussion 260; 180–190 s for ARM
 * images in aws-codebuild-docker-images issue 793), so on-demand start-ups are drawn uniformly from
 * 30–90 s, and a fleet's from 1–3 s (its container start only).
 */
const STARTUPS = {
  'on-demand': { low: 30, high: 90 },
  'reserved fleet': { low: 1, high: 3 },
} as const;
type Fleet = keyof typeof STARTUPS;

/**
 * What is measured: the design before (a fresh build for every job, as GRADING_JOBS_PER_BUILD=1
 * runs it) and after (builds take queued jobs one after another), on-demand; and after on a fleet.
 */
const RUNS: readonly { readonly name: string; readonly fleet: Fleet; readonly jobsPerBuild: string }[] = [
  { name: 'on-demand, a build per job (before)', fleet: 'on-demand', jobsPerBuild: '1' },
  { name: 'on-demand, builds take queued jobs', fleet: 'on-demand', jobsPerBuild: '100' },
  { name: 'reserved fleet, builds take queued jobs', fleet: 'reserved fleet', jobsPerBuild: '100' },
];

export async function measureTurnaround(): Promise<SectionResult> {
  const rows: Row[] = [];
  const notes: string[] = [];
  if (process.getuid?.() !== 0) {
    notes.push('- Turnaround: skipped; the emulated CodeBuild builds need root.');
    return { rows, notes };
  }
  progress('turnaround: synthesizing the stack (the deployed-artifact test’s assembly)');
  const outdir = process.env.BENCH_TURNAROUND_CDK_OUT ?? (await mkdtemp(join(tmpdir(), 'turnaround-cdk-')));
  // BENCH_TURNAROUND_CDK_OUT + BENCH_TURNAROUND_STACK: an assembly synthesized before (the deployed-artifact test's).
  const stackName = process.env.BENCH_TURNAROUND_STACK ?? 'Turnaround';
  let fleet: Fleet = 'on-demand';
  const saved = { ...process.env };
  let stack: DeployedStack | undefined;
  try {
    if (!process.env.BENCH_TURNAROUND_CDK_OUT) synthesize(outdir, stackName, {});
    stack = await deploy(outdir, stackName, {
      dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT!,
      buildStartupDelayMs: () => {
        const { low, high } = STARTUPS[fleet];
        return (low + Math.random() * (high - low)) * 1000 * SCALE;
      },
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
    const idealSeconds = (startup: number) => (STUDENTS * CASE_SECONDS) / CONCURRENCY + startup;
    for (const [index, { name: which, fleet: startups, jobsPerBuild }] of RUNS.entries()) {
      fleet = startups;
      process.env.GRADING_JOBS_PER_BUILD = jobsPerBuild;
      const gradeableId = `slow-${index}`;
      await uploadGradeable(world.course, slowGradeable(gradeableId));
      progress(`turnaround: ${STUDENTS} submissions at once, ${which}, ${CONCURRENCY} builds at most`);
      const run = await rush(stack, world.course, gradeableId, students, sandbox);
      const { low, high } = STARTUPS[startups];
      const ideal = idealSeconds((low + high) / 2);
      const caseMinutes = (STUDENTS * CASE_SECONDS) / 60;
      const billedTarget = 1.5 * caseMinutes + (run.builds * (low + high)) / 2 / 60;
      const p50 = quantile(run.seconds, 0.5);
      progress(
        `turnaround: ${which}: p50 ${s(p50)}, p95 ${s(quantile(run.seconds, 0.95))}, max ${s(Math.max(...run.seconds))}, ${run.builds} builds, ${run.billedMinutes} build-minutes, ${run.failed} not graded; ideal ${s(ideal)}`,
      );
      const p95 = quantile(run.seconds, 0.95);
      const max = Math.max(...run.seconds);
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
          name: `${which}: build-minutes billed (each build rounded up to a minute), ${run.builds} builds started`,
          target: `≤ 1.5× the test cases' ${caseMinutes.toFixed(0)} min + start-ups = ${billedTarget.toFixed(1)} min`,
          baseline: `test cases alone: ${caseMinutes.toFixed(0)} min`,
          measured: `${run.billedMinutes} min`,
          met: run.billedMinutes <= billedTarget,
        },
      );
      if (run.failed > 0) notes.push(`- Turnaround (${which}): ${run.failed} of ${STUDENTS} submissions were not graded: ${run.problem}`);
    }
    const missed = rows.filter((row) => row.met === false);
    if (missed.length > 0)
      notes.push(
        `- Turnaround: ${missed.map((row) => `${row.name}: ${row.measured}`).join('; ')}. Run at ${SCALE} of real time: this machine's own work per job (checkout, archive, the harness and its sandboxes on two shared cores) counts ${1 / SCALE}× in real-time units.`,
      );
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
  readonly builds: number;
  readonly billedMinutes: number;
}

/** Everyone submits at once; each result's time is when it is first seen stored. */
async function rush(
  stack: DeployedStack,
  course: Course,
  gradeableId: string,
  students: readonly { user: TestUser; token: string }[],
  sandbox: Readonly<Record<string, string>>,
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
    concurrency: CONCURRENCY,
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
    while (done.size < students.length && performance.now() < limit) {
      await sleep(100);
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
  const billedMinutes = builds.reduce(
    (sum, build) => sum + Math.max(1, Math.ceil(((build.endTime ?? Date.now()) - build.startTime) / SCALE / 60_000)),
    0,
  );
  return {
    seconds: [...done].map(([owner, at]) => (at - submitted.get(owner)!) / 1000 / SCALE),
    failed,
    problem: problem || `${students.length - done.size} not graded in time`,
    builds: builds.length,
    billedMinutes,
  };
}

/** One test case that sleeps (no CPU) for CASE_SECONDS, scaled. */
function slowGradeable(id: string): Record<string, unknown> {
  const testCase: TestCase = {
    name: 'Takes its time',
    command: `sleep ${(CASE_SECONDS * SCALE).toFixed(2)}`,
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
