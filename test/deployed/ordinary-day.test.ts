import { mkdtemp, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { routeKeys } from '#functions/definitions.ts';
import { daySteps } from '#functions/day-steps.ts';
import { startGitServer } from '../support/git-server.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';
import { routeFunction, type PolicyDocument } from './cloudformation.ts';
import type { DeployedStack } from './deployment.ts';
import { allPassed } from './codebuild.ts';
import type { RunResult } from '#shared/grading/runner-protocol.ts';
import { checkedFetch } from '../support/checked-fetch.ts';
import { createGradebookExport } from '#shared/data/gradebook-exports.ts';
import { newGradebookExportId } from '#shared/gradebook/exports.ts';
import { SWEEP_GRACE_MS } from '#shared/summaries/sweep.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { ltiScoreOutbox } from '#shared/lti/score-queue.ts';
import { CLIENT_ID as OIDC_CLIENT_ID, startOidcProvider } from '../support/oidc-provider.ts';
import { startLtiPlatform } from '../support/lti-platform.ts';
import { freePort } from '../support/ports.ts';
import {
  CAN_BUILD,
  COURSE,
  date,
  DAY_PHASES,
  GRADEABLE,
  NEEDS_ROOT,
  STACK,
  TERM,
  UNAPPROVED,
  call,
  collectProblems,
  deployed,
  expectNoFailures,
  expectProblems,
  fail,
  failures,
  git,
  gradedValues,
  handedOn,
  identityProvider,
  lms,
  LMS_CONTEXT,
  lmsStarted,
  login,
  LTI_FRONTEND_URL,
  passwords,
  personas,
  receiver,
  stack,
  startDay,
  testCases,
  tokens,
  type DayStep,
  type PersonaName,
} from './day.ts';

/**
 * The deployed-artifact test: the CDK app is synthesized, and its bundled
 * functions run the way Lambda runs them, behind the template's HTTP API routes, with every AWS
 * call evaluated against the caller's own IAM policy from the template. An ordinary day of the
 * service — logins, every route, the reference page, a webhook, submissions graded through the
 * queue, the worker, S3 and fresh CodeBuild builds running the template's own buildspec, the
 * summaries on request and from the nightly schedule, a logout — must pass without a single
 * AccessDenied, crash, failed build, `error` envelope or unexpected `fail`. It never imports the
 * handlers. See README.md here for what it emulates and what it cannot.
 *
 * The day is each route's steps (`functions/<name>/day.ts`, gathered by functions/day-steps.ts),
 * with the steps of the day itself below (the deployment, seeding, the grading worker's defences,
 * the schedule, the coverage), run phase by phase in the order of DAY_PHASES (test/deployed/day.ts).
 */
let outdir: string;
const started = Date.now();
const timings: string[] = [];

/** A result naming the gradeable's test cases, every one passed: what a forger would put. */
const FORGED_RESULT = JSON.stringify(allPassed(testCases));

/** What an insider with read-only console access (and s3:PutObject) got out of one build. */
interface InsiderHaul {
  /** Every URL in the build's definition (BatchGetBuilds) and CloudTrail's StartBuild record. */
  readonly urls: string[];
  /** Job objects read: by a URL from outside the grading VPC, or with the insider's own credentials. */
  readonly readJob: string[];
  /** Result objects the insider put. */
  readonly forged: string[];
  /** The job's key or a hidden expected output, found in what the insider reads. */
  readonly secrets: string[];
  /** What S3 answered the insider's attempts that failed. */
  readonly refusals: string[];
  /** The StartBuild request's parameters, by name, as CloudTrail records them. */
  readonly overrides: string[];
}

/**
 * Submits a version as student and, the moment its build puts the result (before the worker reads
 * it), lets an insider try everything the build's definition and CloudTrail give away: every URL
 * they hold (GET, and PUT a forged result), and the job's objects with the insider's own read-only
 * console credentials, which also allow s3:PutObject. Answers what the insider got, the URLs that
 * stay valid past the build's own time limit, and `forged`, which submits another version whose
 * result an administrator replaces with a forged one the moment the build puts it.
 */
async function insiderAttack() {
  const { S3Client, GetObjectCommand, PutObjectCommand } = await import('@aws-sdk/client-s3');
  const { CodeBuildClient, BatchGetBuildsCommand } = await import('@aws-sdk/client-codebuild');
  const role = {
    logicalId: 'Insider',
    name: 'ReadOnlyConsole',
    arn: 'arn:aws:iam::123456789012:role/ReadOnlyConsole',
    trustPolicy: undefined,
    policies: [
      {
        name: 'ReadOnlyAccess',
        document: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Action: ['codebuild:BatchGet*', 's3:Get*', 's3:List*', 'cloudtrail:LookupEvents'], Resource: '*' },
            { Effect: 'Allow', Action: ['s3:PutObject'], Resource: '*' },
          ],
        },
      },
    ],
  };
  const clientOptions = (principal: Parameters<DeployedStack['endpoint']['issueCredentials']>[0]) => ({
    endpoint: stack!.endpoint.url,
    region: 'us-east-1',
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED' as const,
    credentials: stack!.endpoint.issueCredentials(principal),
  });
  const insiderOptions = clientOptions({ label: 'insider', arn: `arn:aws:sts::123456789012:assumed-role/${role.name}/insider`, role });
  const s3 = new S3Client(insiderOptions);
  const codebuild = new CodeBuildClient(insiderOptions);
  const haul: InsiderHaul = { urls: [], readJob: [], forged: [], secrets: [], refusals: [], overrides: [] };
  const expiresWithin: string[] = [];
  const bucket = stack!.deployment.functions.find((fn) => fn.environment.GRADING_BUCKET)!.environment.GRADING_BUCKET!;

  const attack = async (resultKey: string) => {
    // What the console and CloudTrail show of the build that is about to end.
    const event = stack!.codebuild.trail.at(-1)!;
    const buildId = (event.responseElements?.build as { id: string }).id;
    const { builds } = await codebuild.send(new BatchGetBuildsCommand({ ids: [buildId] }));
    // The buildspec is the template's own code (the stack test shows it takes nothing from the worker): left out of the scan.
    const withoutBuildspec = (build: unknown) => ({ ...(build as object), source: undefined });
    const seen = JSON.stringify({
      builds: builds?.map(withoutBuildspec),
      event: { ...event, responseElements: { build: withoutBuildspec(event.responseElements?.build) } },
    });
    for (const secret of ['Hello, World!', 'resultKey', 'hmac']) if (seen.includes(secret)) haul.secrets.push(secret);
    // A signature, a session's credentials or the container credentials endpoint's path (the buildspec's code names the parameters, with no value): none may be there.
    for (const found of seen.match(/X-Amz-(Signature|Credential|Security-Token)=[\w%]|ASIA[A-Z0-9]{12}|\/v2\/credentials\/[\w-]+/g) ?? [])
      haul.secrets.push(found);
    haul.overrides.push(...Object.keys(event.requestParameters).sort());
    const urls = [...new Set(seen.match(/https?:\/\/[^"\s\\]+/g) ?? [])];
    haul.urls.push(...urls);
    for (const url of urls) {
      const expires = Number(new URL(url).searchParams.get('X-Amz-Expires'));
      if (!(expires <= builds![0]!.timeoutInMinutes! * 60)) expiresWithin.push(`${url.split('?')[0]} valid ${expires} s`);
      // eslint-disable-next-line no-restricted-globals -- the grading bucket's presigned URLs, not the API
      const got = await fetch(url);
      if (got.ok) haul.readJob.push(`GET ${url.split('?')[0]}`);
      else haul.refusals.push(`GET ${url.split('?')[0]}: ${got.status} ${await got.text()}`);
      // eslint-disable-next-line no-restricted-globals -- the grading bucket's presigned URLs, not the API
      const put = await fetch(url, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: FORGED_RESULT });
      if (put.ok) haul.forged.push(`PUT ${url.split('?')[0]}`);
      else haul.refusals.push(`PUT ${url.split('?')[0]}: ${put.status} ${await put.text()}`);
    }
    // With the insider's own credentials: the job's input (its key is made of the build's ARN, which the trail shows) and result.
    const prefix = resultKey.slice(0, resultKey.lastIndexOf('/'));
    for (const key of [`${prefix}/input.tgz`, resultKey]) {
      await s3
        .send(new GetObjectCommand({ Bucket: bucket, Key: key }))
        .then(() => haul.readJob.push(`GetObject ${key}`))
        .catch((error: Error) => haul.refusals.push(`GetObject ${key}: ${error.message}`));
    }
    await s3
      .send(new PutObjectCommand({ Bucket: bucket, Key: resultKey, Body: FORGED_RESULT, ContentType: 'application/json' }))
      .then(() => haul.forged.push(`PutObject ${resultKey}`))
      .catch((error: Error) => haul.refusals.push(`PutObject ${resultKey}: ${error.message}`));
  };

  /** Submits a version as student; `onResult` runs when its build has put its result, before the build ends. */
  const submitWatched = async (onResult: (key: string) => Promise<void>): Promise<string | undefined> => {
    let acted: string | undefined;
    stack!.s3.afterPut = async (bucketName, key) => {
      if (acted || bucketName !== bucket || !key.endsWith('/result.json')) return;
      acted = key;
      await onResult(key);
    };
    try {
      const before = stack!.codebuild.started;
      await call('POST', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/upload`, {
        as: 'student',
        form: { user_id: 'student', vcs_checkout: 'true', git_repo_id: 'none' },
      });
      const deadline = Date.now() + 60_000;
      while (!acted && failures.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      await stack!.queues.idle(30_000).catch((error: Error) => fail('grading queue', error.message));
      if (stack!.codebuild.started !== before + 1)
        fail('insider', `one build should have started, not ${stack!.codebuild.started - before}`);
      return acted;
    } finally {
      stack!.s3.afterPut = undefined;
    }
  };

  // The insider's attempts are denied and refused by design: recorded in the haul, not problems of the
  // day. Their presigned requests act as the worker that signed the URLs, from outside any VPC.
  const denials = stack!.evaluator.denials.length;
  expectProblems([
    /^AccessDenied: insider may not s3:/,
    /^AccessDenied: GradingWorker\w* may not s3:\w+ on \S+ \(S3 \w+ \(presigned SDK\)\)/,
    /^S3 refused (GET|PUT) \S+ by GradingWorker\w*: SignatureDoesNotMatch: /,
  ]);
  try {
    await submitWatched(attack);
    collectProblems('insider');
  } finally {
    expectProblems([]);
  }
  haul.refusals.push(...stack!.evaluator.denials.slice(denials).map((denial) => denial.message));

  const administrator = new S3Client(
    clientOptions({ label: 'administrator', arn: 'arn:aws:iam::123456789012:user/administrator', administrator: true }),
  );
  const forged = () =>
    submitWatched(async (key) => {
      await administrator.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: FORGED_RESULT, ContentType: 'application/json' }));
    });
  return { insider: haul, forged, expiresWithin };
}

/** A result's status and which test cases passed, or its message. */
const passes = (result: RunResult) =>
  result.status === 'graded'
    ? { status: result.status, passed: result.testCases.map((test) => test.passed || `${test.message} (exit ${test.exitCode})`) }
    : result;

/**
 * The grading worker's build loop (runJobsInCodeBuild), run here with the worker's role and the
 * deployment's sandbox: two queued jobs (`builds-a` greets and has a README, `builds-b` neither),
 * then one job whose first build an administrator stops the moment its input is put, then one
 * whose every build is stopped so. Each job also runs a test case that leaves a mark wherever it
 * may write and fails if it finds one, or sees /grading: it passes in both jobs of one build only
 * if the second job's sandboxes start clean. Answers each run's results and builds started.
 */
async function gradeInBuilds() {
  const { runJobsInCodeBuild, codeBuildSandbox } = await import('#shared/grading/builds/codebuild.ts');
  const { caseLimits, DEFAULT_BOUNDS } = await import('#shared/grading/worker/limits.ts');
  const { defaultRunLimits } = await import('#shared/grading/runner-protocol.ts');
  const { sessionArn } = await import('./iam.ts');
  const { CodeBuildClient, StopBuildCommand } = await import('@aws-sdk/client-codebuild');
  const worker = stack!.deployment.functions.find((fn) => fn.environment.GRADING_PROJECT)!;
  const credentials = stack!.endpoint.issueCredentials({
    label: worker.logicalId,
    arn: sessionArn(worker.role, worker.name),
    role: worker.role,
  });
  const saved = { ...process.env };
  Object.assign(process.env, {
    ...Object.fromEntries(
      ['GRADING_PROJECT', 'GRADING_BUCKET', 'GRADING_HARNESS', 'GRADING_IMAGES'].map((name) => [name, worker.environment[name]]),
    ),
    AWS_ENDPOINT_URL_S3: stack!.endpoint.url,
    AWS_ENDPOINT_URL_CODEBUILD: stack!.endpoint.url,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_SESSION_TOKEN: credentials.sessionToken,
    AWS_REGION: 'us-east-1',
  });
  const administrator = new CodeBuildClient({
    endpoint: stack!.endpoint.url,
    region: 'us-east-1',
    credentials: stack!.endpoint.issueCredentials({
      label: 'administrator',
      arn: 'arn:aws:iam::123456789012:user/administrator',
      administrator: true,
    }),
  });
  const limits = caseLimits({ timeout_seconds: 20 }, undefined, DEFAULT_BOUNDS);
  const cases = [
    { name: 'Greets', command: 'sh hello.sh', expect: { stdout_contains: 'Hello' } },
    { name: 'Has a README', command: 'true', expect: { files_exist: ['README.md'] } },
    {
      name: 'Starts clean',
      command:
        'test ! -e /grading || exit 2; for d in "$HOME" /tmp /dev/shm; do test ! -e "$d/mark" || exit 3; done; for d in "$HOME" /tmp /dev/shm; do touch "$d/mark"; done',
      expect: { exit_code: 0 },
    },
  ].map((testCase) => ({ ...testCase, timeout_seconds: 20, limits }));
  const request = (repository: string) => ({
    jobId: repository,
    repository: { url: git.repositoryUrl(repository), subdirectory: '' },
    testCases: cases,
    limits: defaultRunLimits,
    allowedHosts: [git.host],
    sandbox: 'bwrap' as const,
  });
  /** Runs the jobs as one worker wake-up does (the first, then each the queue gives), stopping the first `deaths` builds as soon as an input is put. */
  const run = async (repositories: string[], deaths = 0) => {
    const before = stack!.codebuild.started;
    const results: RunResult[] = [];
    const stopped = new Set<string>();
    stack!.s3.afterPut = async (_bucket, key) => {
      const build = /^jobs\/arn:[^/]+\/([^/]+)\/\d+\/input\.tgz$/.exec(key)?.[1];
      if (!build || stopped.has(build) || stopped.size >= deaths) return;
      stopped.add(build);
      await administrator.send(new StopBuildCommand({ id: build }));
    };
    const jobs = repositories.map((repository) => ({
      request: request(repository),
      complete: async (result: RunResult) => void results.push(result),
    }));
    try {
      await runJobsInCodeBuild(codeBuildSandbox()!, jobs[0]!, { deadline: Date.now() + 240_000, next: async () => jobs.splice(1, 1)[0] });
    } finally {
      stack!.s3.afterPut = undefined;
    }
    return { results, builds: stack!.codebuild.started - before };
  };
  // Stopped builds are the point here, not problems of the day.
  expectProblems([/^CodeBuild \w+ build \S+: Build STOPPED/]);
  try {
    const jobs = await run(['builds-a', 'builds-b']);
    const once = await run(['builds-a'], 1);
    const twice = await run(['builds-a'], 2);
    collectProblems('grading in builds');
    expectNoFailures();
    return { jobs, died: { once, twice } };
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) Reflect.deleteProperty(process.env, name);
    Object.assign(process.env, saved);
  }
}

/** The steps of the day itself, which no route's folder holds. */
const daySelf: readonly DayStep[] = [
  {
    title: 'deploys: every route of the route table has an API route, and the template is deployable',
    phase: 'deployed',
    run: () => {
      const templateKeys = new Set(stack!.deployment.api!.routes.map((route) => route.routeKey));
      const missing = routeKeys.map((key) => `${key.method} ${key.path}`).filter((key) => !templateKeys.has(key));
      expect(missing, 'route-table entries without an API route in the template').toEqual([]);
      expect(templateKeys.has('$default')).toBe(true);
      collectProblems('deployment');
      expectNoFailures();
    },
  },
  {
    title: 'seeds users, a term, a course and its class list with the admin command line',
    phase: 'seeded',
    run: async () => {
      // The staff accounts by hand; everyone else from the class list, with generated passwords.
      const byHand = (Object.entries(personas) as [PersonaName, (typeof personas)[PersonaName]][]).filter(([, persona]) => !persona.group);
      await Promise.all([
        ...byHand.map(([name, persona]) => {
          passwords[name] = `pw-${name}-${Math.random().toString(36).slice(2)}`;
          return stack!.admin(
            'add-user',
            name,
            '--given-name',
            persona.given,
            '--family-name',
            persona.family,
            '--email',
            `${name}@example.edu`,
            '--level',
            persona.level,
            '--password',
            passwords[name],
          );
        }),
        stack!.admin('add-term', TERM, '--name', 'Fall 2026', '--start', date(-30), '--end', date(90)),
      ]);
      await stack!.admin('create-course', TERM, COURSE, '--instructor', 'prof', '--display-name', 'Base Course', '--time-zone', 'UTC');
      const folder = await mkdtemp(join(tmpdir(), 'deployed-class-list-'));
      try {
        const rows = (Object.entries(personas) as [PersonaName, (typeof personas)[PersonaName]][])
          .filter(([, persona]) => persona.group)
          .map(([name, persona]) => [name, persona.given, persona.family, `${name}@example.edu`, persona.section, persona.group].join(','));
        await writeFile(
          join(folder, 'class-list.csv'),
          ['user_id,first_name,last_name,email,registration_section,group', ...rows, ''].join('\n'),
        );
        const output = await stack!.admin('enroll', TERM, COURSE, join(folder, 'class-list.csv'));
        expect(output).toContain(`${rows.length} users created`);
        expect(output).toContain('0 rejected');
        for (const [, user, password] of output.matchAll(/^New user (\S+): password (\S+)$/gm)) passwords[user as PersonaName] = password!;
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
      expect(Object.keys(passwords).sort(), 'personas with a password').toEqual(Object.keys(personas).sort());
      collectProblems('seeding');
      expectNoFailures();
    },
  },
  {
    title: 'an unknown path is not found',
    phase: 'identity read',
    run: async () => {
      await call('GET', '/api/nowhere/at/all', { as: 'student', expect: { fail: 'Endpoint not found.', status: 404 } });
    },
  },
  {
    title:
      'the course job sweep, as its schedule invokes it, sends again the message of an export a request wrote but never sent: the export ends done',
    phase: 'summaries read',
    timeoutMs: 120_000,
    run: async () => {
      const sweep = stack!.deployment.schedules.find((schedule) => schedule.logicalId.startsWith('CourseJobSweep'));
      const summaries = stack!.deployment.tables.find((table) => table.logicalId.startsWith('Summaries'));
      if (!sweep || !summaries) return fail('course job sweep', 'no CourseJobSweep schedule or Summaries table in the template');
      // What a create-gradebook-export that died before its send leaves: the export written, queued, no message.
      const exportId = newGradebookExportId();
      const own = process.env.SUMMARIES_TABLE;
      process.env.SUMMARIES_TABLE = summaries.name;
      try {
        await createGradebookExport({
          exportId,
          term: TERM,
          course: COURSE,
          format: 'csv',
          state: 'queued',
          requestedBy: 'prof',
          createdAt: new Date(Date.now() - SWEEP_GRACE_MS - 60_000).toISOString(),
          attempts: 0,
        });
      } finally {
        process.env.SUMMARIES_TABLE = own;
      }
      const result = await stack!.fireSchedule(sweep);
      if (result.functionError) return fail('course job sweep', `the sweeper failed: ${result.payload}`);
      const path = `/api/${TERM}/${COURSE}/gradebook/exports/${exportId}`;
      const deadline = Date.now() + 90_000;
      let data: { status?: string } | undefined;
      while (failures.length === 0) {
        data = (await call('GET', path, { as: 'prof' })).json?.data;
        if (data?.status === 'done' || data?.status === 'failed' || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      if (data?.status !== 'done') fail('course job sweep', `the stranded export did not end done: ${JSON.stringify(data).slice(0, 500)}`);
      collectProblems('course job sweep');
      expectNoFailures();
    },
  },
  {
    title:
      'a grade for linked LMS courses written to the outbox is queued by the relay, as its schedule invokes it, on the LTI score queue, and the lti-score function takes it',
    phase: 'summaries read',
    timeoutMs: 120_000,
    run: async () => {
      const relay = stack!.deployment.schedules.find((schedule) => schedule.logicalId.startsWith('WebhookQueuesOutboxRelaySchedule'));
      const outbox = stack!.deployment.tables.find((table) => table.logicalId.startsWith('WebhookOutbox'));
      const worker = stack!.deployment.functions.find((fn) => fn.logicalId.startsWith('LtiScore'));
      if (!relay || !outbox || !worker)
        return fail('LTI scores', 'no outbox relay schedule, WebhookOutbox table or LtiScore function in the template');
      // What a grade of a course with a linked LMS course writes; this course has none, so the function finds nothing to send.
      const own = process.env.WEBHOOK_OUTBOX_TABLE;
      process.env.WEBHOOK_OUTBOX_TABLE = outbox.name;
      try {
        await transactWrite(
          ltiScoreOutbox({ term: TERM, course: COURSE, ltiScoreLinks: 1 }, { gradeableId: 'hw1', ownerId: 'ada', gradedAt: new Date() }),
        );
      } finally {
        process.env.WEBHOOK_OUTBOX_TABLE = own;
      }
      const result = await stack!.fireSchedule(relay);
      if (result.functionError) return fail('LTI scores', `the relay failed: ${result.payload}`);
      const deadline = Date.now() + 90_000;
      while (!stack!.lambda.invoked.has(worker.logicalId) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 500));
      if (!stack!.lambda.invoked.has(worker.logicalId)) fail('LTI scores', 'the lti-score function never ran');
      collectProblems('LTI scores');
      expectNoFailures();
    },
  },
  {
    title:
      "a student's grade reaches the linked LMS's grade book: the relay, as its schedule invokes it, queues it, and the lti-score function sends the gradebook's total over a service token",
    phase: 'lms scores published',
    builds: true,
    timeoutMs: 120_000,
    run: async () => {
      const relay = stack!.deployment.schedules.find((schedule) => schedule.logicalId.startsWith('WebhookQueuesOutboxRelaySchedule'));
      if (!relay || !lms) return fail('LMS scores', 'no outbox relay schedule in the template, or no LMS');
      const deadline = Date.now() + 90_000;
      let score = lms.grades.scoreOf(LMS_CONTEXT, GRADEABLE, 'lms-student');
      while (!score && Date.now() < deadline) {
        const result = await stack!.fireSchedule(relay);
        if (result.functionError) return fail('LMS scores', `the relay failed: ${result.payload}`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        score = lms.grades.scoreOf(LMS_CONTEXT, GRADEABLE, 'lms-student');
      }
      if (!score) {
        const worker = stack!.deployment.functions.find((fn) => fn.logicalId.startsWith('LtiScore'));
        fail('LMS scores', `no score reached the LMS within 90 s${worker ? `\n${stack!.lambda.logTail(worker, 8)}` : ''}`);
      }
      collectProblems('LMS scores');
      expectNoFailures();
      const line = lms.grades.lineItems(LMS_CONTEXT).find((item) => item.resourceId === GRADEABLE);
      expect({ ...score, timestamp: undefined }).toEqual({
        userId: 'lms-student',
        scoreGiven: 10,
        scoreMaximum: line?.scoreMaximum,
        activityProgress: 'Completed',
        gradingProgress: 'FullyGraded',
        timestamp: undefined,
      });
      expect(Date.parse(score!.timestamp)).toBeLessThan(Date.now());
    },
  },
  {
    title: 'the nightly schedule regenerates the summaries',
    phase: 'summaries regenerated',
    run: async () => {
      const firstGeneration = handedOn.firstGeneration;
      const schedules = stack!.deployment.schedules;
      expect(schedules.length, 'schedules in the template').toBeGreaterThan(0);
      for (const schedule of schedules) {
        await new Promise((resolve) => setTimeout(resolve, 1_100)); // a later generation time
        const result = await stack!.fireSchedule(schedule).catch((error: Error) => {
          fail(`schedule ${schedule.logicalId}`, error.message);
          return undefined;
        });
        if (result?.functionError) fail(`schedule ${schedule.logicalId}`, `its target failed: ${result.payload}`);
        collectProblems(`schedule ${schedule.logicalId} (${schedule.expression}, input ${schedule.input})`);
      }
      const regenerated = await call('GET', `/api/${TERM}/${COURSE}/reports/summaries`, { as: 'prof' });
      const secondGeneration = regenerated.json?.data?.generated_at as string | undefined;
      if (firstGeneration && secondGeneration && !(secondGeneration > firstGeneration)) {
        fail('nightly summaries', `the schedule did not regenerate the summaries (generated_at ${firstGeneration} → ${secondGeneration})`);
      }
    },
  },
  {
    title:
      "grading: the build's definition and CloudTrail hold no URL or credential; an insider who reads them neither reads the job nor forges its result; a result replaced anyway is refused",
    phase: 'grading attacked',
    builds: true,
    timeoutMs: 150_000,
    run: async () => {
      // The student's program now fails its greeting: worth 1 of the 6 visible points, 6 if forged.
      await git.push(`${GRADEABLE}-student`, { 'hello.sh': 'echo "Bye"\n' });
      const { insider, forged, expiresWithin } = await insiderAttack();
      const graded = await gradedValues('student', '', Date.now() + 60_000);
      expect(graded?.total_points, 'points of the version the insider tried to forge').toBe(1);
      expect(insider.readJob, 'job objects the insider read (hidden tests, expected outputs)').toEqual([]);
      expect(insider.forged, 'result objects the insider replaced').toEqual([]);
      expect(insider.secrets, 'key, expected outputs or credentials in the build definition or CloudTrail').toEqual([]);
      expect(insider.urls, 'URLs in the build definition or CloudTrail').toEqual([]);
      expect(insider.overrides, 'what StartBuild was given').toEqual([
        'environmentTypeOverride',
        'imageOverride',
        'imagePullCredentialsTypeOverride',
        'projectName',
        'timeoutInMinutesOverride',
      ]);
      expect(expiresWithin, 'URLs valid longer than the build may run').toEqual([]);
      // Refused by the bucket's policy, not by the insider's own IAM permissions.
      expect(insider.refusals.join('\n')).toMatch(
        /is not authorized to perform: s3:GetObject on resource: \S+\/input\.tgz with an explicit deny in a resource-based policy/,
      );

      // An administrator (who may rewrite any bucket policy) replaces the result the moment the build puts it.
      // The worker stops the build whose result was replaced: it takes no further job.
      expectProblems([
        /^Logged an error: GradingWorker\w*: .*Grading sandbox unavailable: job not graded/,
        /^CodeBuild \w+ build \S+: Build STOPPED/,
      ]);
      const version = await forged();
      const values = await gradedValues('student', '', Date.now() + 60_000);
      collectProblems('a result replaced by an administrator');
      expectProblems([]);
      expectNoFailures();
      expect(version, 'the replaced result').toBeDefined();
      expect(values?.total_points).toBe(0);
      expect(values?.test_cases?.map((test) => test.testcase_message)).toEqual([
        "The grading sandbox's result was refused (it is not signed with this job's key); nothing was graded and your instructor has been told.",
      ]);
    },
  },
  {
    title:
      'grading in builds: one build grades queued jobs one after another, each in sandboxes of its own with its own result; a build that dies under a job is replaced once, then the job fails with a message',
    phase: 'grading attacked',
    builds: true,
    timeoutMs: 300_000,
    run: async () => {
      const { jobs, died } = await gradeInBuilds();
      // Two jobs, one build: the second job fetched only after the first one's sandboxes are gone.
      expect(jobs.builds, 'builds started for two queued jobs').toBe(1);
      expect(jobs.results.map(passes)).toEqual([
        { status: 'graded', passed: [true, true, true] },
        { status: 'graded', passed: [expect.stringMatching(/./), expect.stringMatching(/./), true] },
      ]);
      // Its first build stopped under it: the job is graded in a second, fresh build.
      expect(died.once.builds, 'builds started for a job whose first build died').toBe(2);
      expect(passes(died.once.results[0]!)).toEqual({ status: 'graded', passed: [true, true, true] });
      // Both builds stopped under it: no third build, the job fails saying so.
      expect(died.twice.builds, 'builds started for a job whose builds both died').toBe(2);
      expect(died.twice.results).toEqual([
        {
          status: 'sandbox-failed',
          message: 'The grading sandbox ended without a result twice (stopped); your instructor has been told.',
        },
      ]);
    },
  },
  {
    title: 'answers HEAD on every GET route as the GET, through its HEAD route, without a body',
    phase: 'every GET called',
    run: async () => {
      const getKeys = new Set(routeKeys.filter((key) => key.method === 'GET').map((key) => `GET ${key.path}`));
      const paths = new Map<string, string>();
      for (const called of stack!.gateway.calls) {
        if (getKeys.has(called.routeKey) && called.status < 500 && !paths.has(called.routeKey)) paths.set(called.routeKey, called.path);
      }
      expect(
        [...getKeys].filter((key) => !paths.has(key)),
        'GET routes the day never called',
      ).toEqual([]);
      for (const [routeKey, path] of paths) {
        const headers = { Authorization: tokens.prof!, Prefer: 'http-status' };
        const get = await checkedFetch(`${stack!.gateway.url}${path}`, { headers });
        const head = await checkedFetch(`${stack!.gateway.url}${path}`, { method: 'HEAD', headers });
        expect({ routeKey, status: head.status, body: await head.text() }).toEqual({ routeKey, status: get.status, body: '' });
        expect(head.headers.get('content-type'), routeKey).toBe(get.headers.get('content-type'));
        expect(stack!.gateway.calls.at(-1)?.routeKey, path).toBe(`HEAD ${routeKey.slice('GET '.length)}`);
      }
      collectProblems('HEAD requests');
      expectNoFailures();
    },
  },
  {
    title: 'covered every route of the template, each answered by its own function',
    phase: 'covered',
    run: () => {
      const routes = stack!.deployment.api!.routes;
      const called = new Set(stack!.gateway.calls.filter((call) => call.status < 500).map((call) => call.routeKey));
      const uncovered = routes.map((route) => route.routeKey).filter((key) => !called.has(key));
      expect(uncovered, 'routes the day never called').toEqual([]);
      const idle = stack!.deployment.functions.map((fn) => fn.logicalId).filter((id) => !stack!.lambda.invoked.has(id));
      expect(idle, 'functions of the template the day never ran').toEqual([]);
      expect(stack!.queues.deadLettered, 'dead-lettered wake-ups').toEqual([]);
      // Every other message of the day came twice (SQS delivers at least once), and nothing above noticed.
      expect(stack!.queues.duplicated, 'messages delivered twice').toBeGreaterThan(5);
    },
  },
  {
    title: 'ran every function as Lambda would: an unprivileged user (when the test is root), in a read-only code folder',
    phase: 'covered',
    run: async () => {
      const processes = stack!.lambda.processes();
      expect(processes.length).toBeGreaterThan(0);
      for (const { fn, pid } of processes) {
        const status = await readFile(`/proc/${pid}/status`, 'utf8');
        const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
        expect(uid, `${fn} runs as uid ${uid}`).toBe(process.getuid?.() === 0 ? 65534 : process.getuid?.());
        const root = await readlink(`/proc/${pid}/cwd`);
        expect((await stat(root)).mode & 0o222, `${fn}: ${root} has write bits`).toBe(0);
      }
    },
  },
];

/** Every step of the day, route by route in the route table's order, then the day's own, phase by phase. */
const dayOrder: readonly (DayStep & { readonly route?: string })[] = [
  ...Object.entries(daySteps).flatMap(([route, steps]) => steps.map((step) => ({ ...step, route }))),
  ...daySelf,
]
  .map((step, index) => ({ step, index }))
  .sort((a, b) => DAY_PHASES.indexOf(a.step.phase) - DAY_PHASES.indexOf(b.step.phase) || a.index - b.index)
  .map(({ step }) => step);

describe('the deployed artifacts', () => {
  beforeAll(async () => {
    const git = await startGitServer({
      [`${GRADEABLE}-student`]: { 'hello.sh': 'echo "Hello, World!"\n', 'README.md': '# Homework\n' },
      [`${GRADEABLE}-student2`]: { 'hello.sh': 'echo "Goodbye, World!"\n', 'README.md': '# Homework\n' },
      [`${UNAPPROVED}-student`]: { 'hello.sh': 'echo "Hello, World!"\n' },
      'builds-a': { 'hello.sh': 'echo "Hello, World!"\n', 'README.md': '# A\n' },
      'builds-b': { 'hello.sh': 'echo "Goodbye, World!"\n' },
    });
    const receiver = await startWebhookReceiver();
    // Loaded here, so a skipped run does not load the CDK and the policy evaluator.
    const { deploy, synthesize } = await import('./deployment.ts');
    let mark = Date.now();
    // DEPLOYED_TEST_CDK_OUT=<folder> (development only): synthesize there once, then reuse the assembly.
    const reuse = process.env.DEPLOYED_TEST_CDK_OUT;
    outdir = reuse ?? (await mkdtemp(join(tmpdir(), 'deployed-cdk-out-')));
    // The issuer is in the template, so a reused assembly brings its provider's port along.
    const issuerPort = join(outdir, 'oidc-issuer-port');
    const synthesizing = !reuse || !existsSync(join(reuse, `${STACK}.template.json`));
    const identityProvider = await startOidcProvider(synthesizing ? {} : { port: Number(await readFile(issuerPort, 'utf8')) });
    // The LMS's host is in the template (LTI_ALLOWED_HOSTS), its port with it; the LMS itself starts
    // once the API's address is known.
    const lmsPortFile = join(outdir, 'lms-port');
    const lmsPort = synthesizing ? await freePort() : Number(await readFile(lmsPortFile, 'utf8'));
    startDay({ git, receiver, identityProvider });
    if (synthesizing) {
      await writeFile(issuerPort, new URL(identityProvider.issuer).port);
      await writeFile(lmsPortFile, String(lmsPort));
      // Loopback hosts on any port: the git server's and the webhook receiver's ports change with every run.
      // Summaries of courses of 2 members or more go through the summaries queue and its worker.
      synthesize(outdir, STACK, {
        allowedGitHosts: '127.0.0.1',
        allowedWebhookHosts: '127.0.0.1',
        summariesJobMinUsers: 2,
        oidcIssuer: identityProvider.issuer,
        oidcClientId: OIDC_CLIENT_ID,
        ltiAllowedHosts: `127.0.0.1:${lmsPort}`,
        ltiFrontendUrl: LTI_FRONTEND_URL,
      });
      timings.push(`synthesis ${((Date.now() - mark) / 1000).toFixed(1)} s`);
    }
    mark = Date.now();
    deployed(await deploy(outdir, STACK, { dynamodbEndpoint: inject('dynamodbEndpoint') }));
    lmsStarted(await startLtiPlatform(`${stack!.gateway.url}/api`, { port: lmsPort }));
    timings.push(`deployment ${((Date.now() - mark) / 1000).toFixed(1)} s`);
    // Bundling every function takes minutes, and longer on a machine busy with other work: the
    // limit only stops a setup that hangs (the timings above say how long it took).
  }, 1_200_000);

  afterAll(async () => {
    await stack?.stop();
    await git?.close();
    await receiver?.close();
    await identityProvider?.close();
    await lms?.close();
    if (outdir && !process.env.DEPLOYED_TEST_CDK_OUT) await rm(outdir, { recursive: true, force: true });
    console.info(`deployed-artifact test: ${((Date.now() - started) / 1000).toFixed(1)} s (${timings.join(', ')})`);
  }, 60_000);

  describe('an ordinary day', () => {
    afterEach(() => {
      expectProblems([]);
    });

    for (const step of dayOrder) {
      const title = `${step.phase}: ${step.route ? `${step.route}: ` : ''}${step.title}${step.builds ? NEEDS_ROOT : ''}`;
      it.skipIf(step.builds === true && !CAN_BUILD)(
        title,
        async () => {
          await step.run();
          expectNoFailures();
        },
        step.timeoutMs ?? 60_000,
      );
    }
  });

  describe('with one grant removed by hand', () => {
    it('fails with a message naming the function, the action and the resource', async () => {
      const routeKey = 'GET /api/{semester}/{course}/users';
      const fn = routeFunction(stack!.deployment, routeKey);
      const sessionsTable = stack!.deployment.tables.find((table) => /^Sessions/.test(table.logicalId))!;
      const action = 'dynamodb:BatchGetItem';
      const original = fn.role.policies;
      const edited = removeGrant(original, action, sessionsTable.arn);
      expect(edited, `${fn.logicalId} has no ${action} grant on ${sessionsTable.arn} to remove`).not.toBeUndefined();
      await login('prof');
      stack!.newProblems();
      (fn.role as { policies: typeof original }).policies = edited!;
      try {
        await call('GET', `/api/${TERM}/${COURSE}/users`, { as: 'prof' });
      } finally {
        (fn.role as { policies: typeof original }).policies = original;
      }
      const found = failures.splice(0).join('\n\n');
      expect(found).toContain(`AccessDenied: ${fn.logicalId} may not ${action} on ${sessionsTable.arn}`);
      expect(found).toContain(
        `User: arn:aws:sts::123456789012:assumed-role/${fn.role.name}/${fn.name} is not authorized to perform: ${action} on resource: ${sessionsTable.arn} because no identity-based policy allows the ${action} action`,
      );
    }, 60_000);

    it('the grading worker without s3:PutObject on the jobs bucket: grading fails, naming the function, the action and the resource', async () => {
      const worker = stack!.deployment.functions.find((fn) => fn.environment.GRADING_PROJECT !== undefined)!;
      const bucket = stack!.deployment.buckets.find((candidate) => candidate.name === worker.environment.GRADING_BUCKET)!;
      const action = 's3:PutObject';
      const granted = `${bucket.arn}/jobs/*`;
      const original = worker.role.policies;
      const edited = removeGrant(original, action, granted);
      expect(edited, `${worker.logicalId} has no ${action} grant on ${granted} to remove`).not.toBeUndefined();
      await login('student');
      stack!.newProblems();
      const denialsBefore = stack!.evaluator.denials.length;
      (worker.role as { policies: typeof original }).policies = edited!;
      let problems: string[];
      try {
        await call('POST', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/upload`, {
          as: 'student',
          form: { user_id: 'student', vcs_checkout: 'true', git_repo_id: 'none' },
        });
        const deadline = Date.now() + 30_000;
        const denied = () =>
          stack!.evaluator.denials.slice(denialsBefore).some((denial) => denial.principal === worker.logicalId && denial.action === action);
        while (!denied() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
        // The worker's failure is logged, and its wake-up handed back to the queue.
        const logged = () =>
          stack!.lambda.errorLines.some((line) => line.function === worker.logicalId && line.line.includes(`perform: ${action}`));
        while (!logged() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        (worker.role as { policies: typeof original }).policies = original;
        problems = [...failures.splice(0), ...stack!.newProblems()];
      }
      const found = problems.join('\n\n');
      const resource = new RegExp(
        `AccessDenied: ${worker.logicalId} may not ${action} on ${escapeRegExp(bucket.arn)}/jobs/[^ ]+/input\\.tgz`,
      );
      expect(found).toMatch(resource);
      expect(found).toMatch(
        new RegExp(
          `User: ${escapeRegExp(`arn:aws:sts::123456789012:assumed-role/${worker.role.name}/${worker.name}`)} is not authorized to perform: ${action} on resource: ${escapeRegExp(bucket.arn)}/jobs/[^ ]+ because no identity-based policy allows the ${action} action`,
        ),
      );
      // What the worker itself reports: the grading failed with that denial.
      expect(found).toMatch(new RegExp(`Logged an error: ${worker.logicalId}: .*Grading failed.*is not authorized to perform: ${action}`));
    }, 60_000);
  });
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The policies with `action` on `resource` taken out (undefined when no statement grants it exactly). */
function removeGrant(policies: readonly { name: string; document: PolicyDocument }[], action: string, resource: string) {
  let removed = false;
  const edited = policies.map((policy) => {
    const statements = (Array.isArray(policy.document.Statement) ? policy.document.Statement : [policy.document.Statement]).flatMap(
      (statement) => {
        const actions = ([] as string[]).concat(statement.Action as string | string[]);
        const resources = ([] as string[]).concat(statement.Resource as string | string[]);
        if (statement.Effect !== 'Allow' || !actions.includes(action) || !resources.includes(resource)) return [statement];
        removed = true;
        const rest = resources.filter((candidate) => candidate !== resource);
        return [
          ...(actions.length > 1
            ? [{ ...statement, Action: actions.filter((candidate) => candidate !== action), Resource: resources }]
            : []),
          ...(rest.length > 0 ? [{ ...statement, Action: [action], Resource: rest }] : []),
        ];
      },
    );
    return { name: policy.name, document: { ...policy.document, Statement: statements } };
  });
  return removed ? edited : undefined;
}
