import { submissionsOfGradeable } from '#shared/data/submissions.ts';
import type { TestCase } from '#shared/gradeables/gradeable.ts';
import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { DEFAULT_BOUNDS, runTestCases } from '#shared/grading/worker/limits.ts';
import { runSubmission } from '#shared/grading/runner/runner.ts';
import { defaultRunLimits } from '#shared/grading/runner-protocol.ts';
import { startLocalGradingQueue } from '#infra/local/grading-queue.ts';
import { addMember } from '../test/support/courses.ts';
import { startGitServer, type GitServer } from '../test/support/git-server.ts';
import { createUser, type TestUser } from '../test/support/users.ts';
import { median, ms, progress, ratio, type Row, type SectionResult } from './common.ts';
import { measureQueueEstimate } from './standing.ts';
import { createWorld, invoke, request, sessionToken, vcsGradeable, type World } from './world.ts';

const SECTION = 'Grading';
/** The sandbox may make a job at most this much costlier than the same job run without it. */
const TARGET = 1.5;
/** Jobs per mode and worker count, in TURNS bursts; `BENCH_GRADING_JOBS` changes it. */
const JOBS = Math.max(4, Number(process.env.BENCH_GRADING_JOBS ?? 24));
const TURNS = 4;
/** Submit-to-result samples per mode on an empty queue. */
const SAMPLES = 6;
const GRADEABLE = 'trivial';
/** Two test cases that do next to nothing. */
const TEST_CASES = [
  { name: 'Runs', command: 'true', expect: { exit_code: 0 } },
  { name: 'Prints', command: 'echo ok', expect: { stdout: 'ok\n' } },
].map((testCase): TestCase => ({
  ...testCase,
  details: '',
  points_available: 1,
  is_extra_credit: false,
  is_hidden: false,
  timeout_seconds: 10,
}));
const POINTS = 2;

type Mode = 'bwrap' | 'unsafe-none';
const MODES: readonly Mode[] = ['bwrap', 'unsafe-none'];

interface Student {
  readonly user: TestUser;
  readonly token: string;
}

/**
 * Grading through the real worker path, with the bubblewrap sandbox and without it
 * (`GRADING_SANDBOX=unsafe-none`), on the same trivial test cases in the same run: submissions
 * through the submit handler, the local grading queue (the same worker function as `npm start`),
 * a checkout over HTTP from a local git server, the runner process, the harness and its test
 * cases. The two modes differ only in the sandbox: a bubblewrap around the harness, one nested
 * bubblewrap per test case, and the runner's check that a sandbox can be made (two more).
 */
export async function measureGrading(): Promise<SectionResult> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const problems: string[] = [];
  const previousMode = process.env.GRADING_SANDBOX;
  const previousHosts = process.env.ALLOWED_GIT_HOSTS;
  progress('grading: setting up a git server, a course, a gradeable and students');
  const git = await startGitServer({ [GRADEABLE]: { 'README.md': 'A submission.\n' } });
  try {
    process.env.ALLOWED_GIT_HOSTS = git.host;
    const world = await createWorld({ submit: false });
    await uploadGradeable(world.course, trivialGradeable(git));
    const students = await Promise.all(
      Array.from({ length: JOBS }, async (): Promise<Student> => {
        const user = await createUser('user', 'grading');
        await addMember(world.course, user, 4, '1');
        return { user, token: await sessionToken(user.userId) };
      }),
    );
    const grading = gradingRuns(world, students, problems);
    // Warm-up: the JVM, the git server, the page cache of node and bwrap.
    for (const mode of MODES) await grading.latency(mode);

    // The modes take turns (A B B A …) so that a busy moment of the machine hits both alike.
    for (const workers of [1, 2]) {
      const perJob: Record<Mode, number[]> = { bwrap: [], 'unsafe-none': [] };
      for (let turn = 0; turn < TURNS; turn++) {
        for (const mode of alternate(turn)) perJob[mode].push(await grading.burst(mode, workers, Math.ceil(JOBS / TURNS)));
      }
      const cost = (mode: Mode) => perJob[mode].reduce((sum, value) => sum + value, 0) / perJob[mode].length;
      const [sandboxed, plain] = [cost('bwrap'), cost('unsafe-none')];
      const perMinute = (perJobMs: number) => `${(60_000 / perJobMs).toFixed(0)} jobs/min`;
      rows.push({
        section: SECTION,
        name: `per-job cost with the sandbox, ${JOBS} jobs of 2 trivial test cases, ${workers} worker${workers > 1 ? 's' : ''}`,
        target: `≤ ${TARGET}× without it`,
        baseline: `same jobs, GRADING_SANDBOX=unsafe-none (same worker, checkout, runner process and harness; no bwrap): ${ms(plain)}/job, ${perMinute(plain)}`,
        measured: `${ms(sandboxed)}/job, ${perMinute(sandboxed)}: ${ratio(sandboxed / plain)} (${signed(sandboxed - plain)})`,
        met: problems.length === 0 && sandboxed / plain <= TARGET,
      });
    }

    // The queue estimate, from the job times the bursts just recorded, against the actual waits.
    rows.push(await grading.estimate('bwrap', 2));

    const latencies: Record<Mode, number[]> = { bwrap: [], 'unsafe-none': [] };
    for (let sample = 0; sample < SAMPLES; sample++) {
      for (const mode of alternate(sample)) latencies[mode].push(await grading.latency(mode));
    }
    const [sandboxed, plain] = [median(latencies.bwrap), median(latencies['unsafe-none'])];
    rows.push({
      section: SECTION,
      name: `submit to result on an empty queue, p50 of ${SAMPLES}`,
      target: `≤ ${TARGET}× without it`,
      baseline: `GRADING_SANDBOX=unsafe-none: ${ms(plain)}`,
      measured: `${ms(sandboxed)}: ${ratio(sandboxed / plain)}`,
      met: problems.length === 0 && sandboxed / plain <= TARGET,
    });
    // Where the time goes: the runner's own work (sandbox check, checkout, harness and its test
    // cases), here in this process, without the runner process's start, the queue or DynamoDB.
    const work: Record<Mode, number[]> = { bwrap: [], 'unsafe-none': [] };
    for (let sample = 0; sample < SAMPLES; sample++) {
      for (const mode of alternate(sample)) work[mode].push(await runnerWork(git, mode, sample, problems));
    }
    const [workSandboxed, workPlain] = [median(work.bwrap), median(work['unsafe-none'])];
    rows.push({
      section: SECTION,
      name: `of which the runner's work alone (check, checkout, harness), p50 of ${SAMPLES}`,
      target: '—',
      baseline: `GRADING_SANDBOX=unsafe-none: ${ms(workPlain)}`,
      measured: `${ms(workSandboxed)}: ${ratio(workSandboxed / workPlain)} (${signed(workSandboxed - workPlain)})`,
      met: undefined,
    });
    const missed = rows.filter((row) => row.met === false);
    if (problems.length > 0) notes.push(...problems.map((problem) => `- grading: ${problem}`));
    else if (missed.length > 0)
      notes.push(
        `- Grading: the sandbox made a trivial job more than ${TARGET}× costlier (${missed.map((row) => row.measured).join('; ')}). Its own work per job is two bubblewraps and a prlimit for the runner's sandbox check, one bubblewrap around the harness and one per test case (prlimit runs in both modes); see bench/grading.ts.`,
      );
  } finally {
    restore('GRADING_SANDBOX', previousMode);
    restore('ALLOWED_GIT_HOSTS', previousHosts);
    await git.close();
  }
  return { rows, notes };
}

/** Submits and waits for grades, in one mode at a time, through the local grading queue. */
function gradingRuns(world: World, students: readonly Student[], problems: string[]) {
  const { course } = world;

  async function submit(student: Student): Promise<void> {
    const answer = await invoke(
      'submit-vcs',
      request('POST', `/api/${course.term}/${course.course}/gradeable/${GRADEABLE}/upload`, {
        token: student.token,
        form: { user_id: student.user.userId, vcs_checkout: 'true', git_repo_id: 'none' },
      }),
    );
    if (answer.status !== 'success') throw new Error(`bench: submission failed: ${JSON.stringify(answer)}`);
  }

  /** Every student's latest version graded with full points. */
  async function check(mode: Mode, graded: readonly Student[]): Promise<void> {
    const submissions = await submissionsOfGradeable(course.term, course.course, GRADEABLE);
    for (const student of graded) {
      const latest = submissions.find((submission) => submission.ownerId === student.user.userId)?.versions.at(-1);
      if (latest?.state !== 'graded' || latest.points !== POINTS) {
        problems.push(
          `${mode}: ${student.user.userId}'s version ${latest?.version} ended ${latest?.state} with ${latest?.points} points (${latest?.message ?? 'no message'})`,
        );
      }
    }
  }

  /** Time (ms) from the first submission of `graded` to the last result stored, with `workers` workers. */
  async function grade(mode: Mode, workers: number, graded: readonly Student[]): Promise<number> {
    process.env.GRADING_SANDBOX = mode;
    const queue = startLocalGradingQueue({ workers });
    try {
      const started = performance.now();
      for (const student of graded) await submit(student);
      // Idle once every wake-up was handled, each one grading the oldest job.
      await queue.idle();
      const elapsed = performance.now() - started;
      await check(mode, graded);
      return elapsed;
    } finally {
      await queue.stop();
    }
  }

  return {
    /** Time per job (ms) of `jobs` submissions made at once and graded by `workers` workers. */
    async burst(mode: Mode, workers: number, jobs: number): Promise<number> {
      progress(`grading: ${jobs} jobs, ${mode}, ${workers} worker(s)`);
      return (await grade(mode, workers, students.slice(0, jobs))) / jobs;
    },
    /** Time (ms) from submitting one job on an empty queue to its result being stored. */
    latency: (mode: Mode): Promise<number> => grade(mode, 1, students.slice(0, 1)),
    /** Every student's version submitted one after another to `workers` workers: the first estimate of each against its wait. */
    async estimate(mode: Mode, workers: number): Promise<Row> {
      progress(`grading: queue estimates of ${students.length} versions, ${mode}, ${workers} worker(s)`);
      process.env.GRADING_SANDBOX = mode;
      const queue = startLocalGradingQueue({ workers });
      try {
        const ids = students.map((student) => ({ userId: student.user.userId, token: student.token }));
        const byId = new Map(students.map((student) => [student.user.userId, student]));
        const { row } = await measureQueueEstimate(world, GRADEABLE, ids, (student) => submit(byId.get(student.userId)!));
        await queue.idle();
        await check(mode, students);
        return row;
      } finally {
        await queue.stop();
      }
    },
  };
}

/** One run of the runner's code in this process (runSubmission, what runner/cli.ts runs), in ms. */
async function runnerWork(git: GitServer, mode: Mode, sample: number, problems: string[]): Promise<number> {
  const testCases = runTestCases(TEST_CASES, undefined, DEFAULT_BOUNDS);
  const started = performance.now();
  const result = await runSubmission({
    jobId: String(900_000 + sample),
    repository: { url: git.repositoryUrl(GRADEABLE), subdirectory: '' },
    testCases,
    limits: defaultRunLimits,
    allowedHosts: [git.host],
    sandbox: mode,
  });
  const elapsed = performance.now() - started;
  if (result.status !== 'graded' || !result.testCases.every((testCase) => testCase.passed))
    problems.push(`${mode}: the runner alone answered ${JSON.stringify(result).slice(0, 300)}`);
  return elapsed;
}

/** The bench's homework: two test cases that do next to nothing, over the local git server. */
function trivialGradeable(git: GitServer): Record<string, unknown> {
  return {
    ...vcsGradeable(GRADEABLE),
    ta_grading: false,
    vcs: { repository_type: 'self-hosted', vcs_path: `${git.url}/{$gradeable_id}.git`, vcs_subdirectory: '' },
    autograding: { test_cases: TEST_CASES },
  };
}

const signed = (value: number) => `${value < 0 ? '−' : '+'}${ms(Math.abs(value))}`;

const alternate = (turn: number): readonly Mode[] => (turn % 2 === 0 ? MODES : [...MODES].reverse());

function restore(name: string, value: string | undefined): void {
  if (value === undefined) Reflect.deleteProperty(process.env, name);
  else process.env[name] = value;
}
