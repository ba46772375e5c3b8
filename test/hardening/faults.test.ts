import {
  ConditionalCheckFailedException,
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dynamo, RECORD_ATTEMPTS } from '#shared/data/client.ts';
import { isBookkeeping } from '#shared/data/request-writes.ts';
import { gradeNextJob } from '#shared/grading/worker/worker.ts';
import { startTestApi, type Answer, type TestApi } from '../support/http.ts';
import { createCourseWorld, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { differences, snapshotTables, withoutJoblessTickets, type Snapshot } from './support.ts';
import { daysFromNow } from '../support/dates.ts';
import { publicVcs, uploadGradeable } from '../support/gradeables.ts';

/**
 * DynamoDB failures injected at every step of every multi-write operation: each ends fully done
 * or not at all, and an HTTP caller gets an `error` envelope whose `code` is honest:
 * RETRYABLE only when nothing was written, UNKNOWN_OUTCOME once a write was sent without a known
 * result, INTERNAL for a failure that retrying cannot cure. Then two cases met in practice: a
 * transaction DynamoDB applied whose answer was lost, and a function whose time ran out while its
 * transaction was in flight; a retry with the same Idempotency-Key creates the version once.
 */

// Grading itself is not under test here: the runner answers at once.
vi.mock('#shared/grading/worker/run.ts', () => ({
  runGrading: async () => ({ status: 'checkout-failed', message: 'Fixture: no repository.' }),
}));

type Kind = 'throttle' | 'timeout' | 'condition' | 'conflict' | 'cancelled';
const KINDS: readonly Kind[] = ['throttle', 'timeout', 'condition', 'conflict', 'cancelled'];
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand']);
const meta = { $metadata: { httpStatusCode: 400 } };

/** The error DynamoDB (or the SDK) would raise for this command, or undefined where it cannot. */
function faultFor(kind: Kind, command: string): Error | undefined {
  const transaction = command === 'TransactWriteItemsCommand';
  switch (kind) {
    case 'throttle':
      return new ProvisionedThroughputExceededException({ message: 'Injected: throughput exceeded', ...meta });
    case 'timeout':
      return Object.assign(new Error('Injected: the request socket timed out'), { name: 'TimeoutError' });
    case 'condition':
      if (transaction) return cancelled(['ConditionalCheckFailed']);
      return WRITES.has(command) ? new ConditionalCheckFailedException({ message: 'Injected: condition failed', ...meta }) : undefined;
    case 'conflict':
      return transaction ? cancelled(['TransactionConflict']) : undefined;
    case 'cancelled':
      return transaction ? cancelled(['None', 'ThrottlingError']) : undefined;
  }
}
const cancelled = (codes: string[]) =>
  new TransactionCanceledException({
    message: `Injected: transaction cancelled [${codes.join(', ')}]`,
    CancellationReasons: codes.map((Code) => ({ Code })),
    ...meta,
  });

interface Fault {
  readonly count: () => number;
  /** The commands seen, in order. */
  readonly commands: () => string[];
  /** The commands seen that DynamoDB answered with a refusal (a failed condition, a cancelled transaction). */
  readonly refused: () => ReadonlySet<number>;
  /** The commands seen that were bookkeeping writes (asBookkeeping): never what a request answers for. */
  readonly bookkeeping: () => ReadonlySet<number>;
  readonly fired: () => string | undefined;
  remove(): void;
}

interface FaultOptions {
  /** Only the command's first attempt fails: the SDK's own retry (maxAttempts 3) absorbs it. */
  readonly firstAttemptOnly?: boolean;
  /** The first attempt reaches DynamoDB, which applies it, and then its answer is lost. */
  readonly afterSending?: boolean;
  /** Every command of this name fails (`nth` is then ignored). */
  readonly everyCommand?: string;
  /** Instead of failing, the command is held this long (before sending, or after with `afterSending`). */
  readonly delayMs?: number;
}

type Stack = {
  add(m: unknown, o: object): void;
  addRelativeTo(m: unknown, o: object): void;
  remove(name: string): boolean;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Fails the nth DynamoDB command from now (0: none, only count) with the given kind of error.
 *
 * Where the fault goes: in place of the HTTP exchange, below the SDK's retry middleware and below
 * the data layer's record of attempts (RECORD_ATTEMPTS), so each attempt the SDK makes fails as
 * DynamoDB would fail it: a throttled command is throttled three times (maxAttempts 3), a timed-out
 * write was sent and has no answer. `firstAttemptOnly` shows the SDK absorbing one failure.
 */
function injectFault(nth: number, kind: Kind, options: FaultOptions = {}): Fault {
  let count = 0;
  let fired: string | undefined;
  const seen: string[] = [];
  const refused = new Set<number>();
  const bookkeeping = new Set<number>();
  const targets = new WeakMap<object, { attempts: number }>();
  const counter = (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
    const command = context.commandName ?? '';
    const index = count++;
    seen.push(command);
    if (isBookkeeping()) bookkeeping.add(index);
    const chosen = options.everyCommand ? command === options.everyCommand : count === nth;
    if (chosen && (options.delayMs !== undefined || faultFor(kind, command))) targets.set(context, { attempts: 0 });
    try {
      return await next(args);
    } catch (error) {
      // Not the injected fault: DynamoDB's own answer, a refusal that wrote nothing.
      if (!targets.has(context)) refused.add(index);
      throw error;
    }
  };
  const failer = (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
    const target = targets.get(context);
    if (!target) return next(args);
    const attempt = ++target.attempts;
    const command = context.commandName ?? '';
    if (options.delayMs !== undefined) {
      fired = `${command} (held ${options.delayMs} ms)`;
      if (!options.afterSending) await sleep(options.delayMs);
      const result = await next(args);
      if (options.afterSending) await sleep(options.delayMs);
      return result;
    }
    if (options.firstAttemptOnly && attempt > 1) return next(args);
    const error = faultFor(kind, command) as Error;
    fired = `${command} (${kind}${options.afterSending ? ', after DynamoDB applied it' : ''})`;
    if (options.afterSending && attempt === 1) await next(args);
    throw error;
  };
  const stack = dynamo().middlewareStack as unknown as Stack;
  stack.add(counter, { step: 'initialize', priority: 'high', name: 'hardeningFaultCounter' });
  stack.addRelativeTo(failer, { relation: 'after', toMiddleware: RECORD_ATTEMPTS, name: 'hardeningFault' });
  return {
    count: () => count,
    commands: () => seen,
    refused: () => refused,
    bookkeeping: () => bookkeeping,
    fired: () => fired,
    remove: () => {
      stack.remove('hardeningFaultCounter');
      stack.remove('hardeningFault');
    },
  };
}

/**
 * The SDK's retry decisions as configured (maxAttempts 3, transient errors and 5xx only), without
 * its back-off: the loops below fail hundreds of commands, each attempt of each.
 */
function withoutBackOff(): () => void {
  const config = dynamo().config as unknown as { retryStrategy: () => Promise<unknown> };
  const original = config.retryStrategy;
  interface Token {
    getRetryCount(): number;
    getRetryDelay(): number;
    getRetryTokenCount(): number;
  }
  const token = (count: number): Token => ({ getRetryCount: () => count, getRetryDelay: () => 1, getRetryTokenCount: () => 0 });
  const strategy = {
    mode: 'standard',
    acquireInitialRetryToken: async () => token(0),
    refreshRetryTokenForRetry: async (previous: Token, info: { errorType: string }) => {
      if (previous.getRetryCount() + 1 >= 3 || info.errorType === 'CLIENT_ERROR') throw new Error('No retry');
      return token(previous.getRetryCount() + 1);
    },
    recordSuccess: () => undefined,
  };
  config.retryStrategy = async () => strategy;
  return () => {
    config.retryStrategy = original;
  };
}

let api: TestApi;
let restoreBackOff: () => void;
let world: CourseWorld;
let gradeable: string;
let loginUser: TestUser;

beforeAll(async () => {
  restoreBackOff = withoutBackOff();
  // A fault at each DynamoDB command of a submission, one after another: one student submits far more than 10 times a minute.
  vi.stubEnv('SUBMISSIONS_PER_MINUTE', '10000');
  // No outbox relay on a timer: each fault is injected into the nth DynamoDB command of the process.
  api = await startTestApi({ workers: 0, outboxRelayMs: 0 });
  world = await createCourseWorld(api);
  loginUser = await createUser('user', 'rotating');
  gradeable = uniqueCode('hw');
  await uploadGradeable(api, world, {
    id: gradeable,
    title: 'Faults',
    type: 'Electronic File',
    vcs: publicVcs('o/{$user_id}'),
    dates: {
      ta_view_start_date: daysFromNow(-3),
      submission_open_date: daysFromNow(-2),
      submission_due_date: daysFromNow(5),
      grade_start_date: daysFromNow(-1),
      grade_due_date: daysFromNow(-0.5),
      grade_released_date: daysFromNow(-0.2),
      grade_inquiry_start_date: daysFromNow(-0.1),
      grade_inquiry_due_date: daysFromNow(9),
      team_lock_date: daysFromNow(5),
    },
    autograding: { test_cases: [{ name: 'Runs', command: 'true', points_available: 1 }] },
  });
}, 120_000);
afterAll(async () => {
  restoreBackOff();
  await api.close();
  vi.unstubAllEnvs();
});

/** Snapshots without the login-failure counters. */
async function state(): Promise<Snapshot> {
  const snapshot = await snapshotTables();
  snapshot.Credentials = snapshot.Credentials!.filter((item) => item.kind !== 'login-failures');
  return snapshot;
}
const items = (snapshot: Snapshot, table: string) => snapshot[table]!;
const added = (before: Snapshot, after: Snapshot, table: string) => {
  const old = new Set(items(before, table).map((item) => JSON.stringify(item)));
  return items(after, table).filter((item) => !old.has(JSON.stringify(item)));
};

interface HttpOperation {
  readonly name: string;
  /** Sends the request (a fresh one each time: unique ids). */
  readonly send: () => Promise<Answer>;
  /** Asserts the operation is fully done. */
  readonly done: (before: Snapshot, after: Snapshot, answer: Answer) => Promise<void> | void;
  /** Asserts what else a failed attempt may leave (default: nothing). */
  readonly notAtAll?: (before: Snapshot, after: Snapshot) => Promise<void> | void;
}

const course = () => `/${world.course.term}/${world.course.course}`;
const tables =
  (...names: string[]) =>
  (before: Snapshot, after: Snapshot) =>
    expect(
      differences(before, after)
        .map((line) => line.split(':')[0])
        .sort(),
    ).toEqual([...names].sort());

let currentToken: string | undefined;
const operations: HttpOperation[] = [
  {
    name: 'token rotation (issueToken)',
    send: () => api.postJson('/token', { user_id: loginUser.userId, password: loginUser.password }, { Prefer: 'http-status' }),
    done: async (before, after, answer) => {
      tables('Sessions')(before, after);
      expect((await api.get('/me', { Authorization: answer.json.data.token })).json.status).toBe('success');
      if (currentToken) expect((await api.get('/me', { Authorization: currentToken })).json.status).toBe('fail');
      currentToken = answer.json.data.token;
    },
    notAtAll: async () => {
      if (currentToken) expect((await api.get('/me', { Authorization: currentToken })).json.status).toBe('success');
    },
  },
  {
    name: 'course creation (createCourse)',
    send: () =>
      api.postJson(
        '/courses',
        {
          course_semester: world.term,
          course_title: uniqueCode('fc'),
          head_instructor: world.users.instructor.userId,
          base_course: `${world.term}|${world.course.course}`,
        },
        { ...world.tokens.instructor, Prefer: 'http-status' },
      ),
    done: (before, after) => {
      tables('AccessGroups', 'Courses', 'Enrollments')(before, after);
      expect([
        added(before, after, 'Courses').length,
        added(before, after, 'Enrollments').length,
        added(before, after, 'AccessGroups').length,
      ]).toEqual([1, 1, 2]);
    },
  },
  {
    name: 'gradeable upload',
    send: () =>
      api.postJson(
        `${course()}/upload`,
        { id: uniqueCode('up'), title: 'Upload', type: 'Electronic File' },
        { ...world.tokens.instructor, Prefer: 'http-status' },
      ),
    done: (before, after) => {
      tables('Audit', 'Gradeables')(before, after);
      // The gradeable, beside its gates (items without a document).
      expect(added(before, after, 'Gradeables').filter((item) => item.document !== undefined)).toHaveLength(1);
    },
  },
  {
    name: 'submission (submitVcs)',
    send: () =>
      api.postJson(
        `${course()}/gradeable/${gradeable}/upload`,
        { vcs_checkout: true, git_repo_id: 'none' },
        { ...world.tokens.student, Prefer: 'http-status' },
      ),
    done: (before, after, answer) => {
      tables('Jobs', 'Submissions')(before, after);
      const key = (snapshot: Snapshot) =>
        items(snapshot, 'Submissions').find(
          (item) => item.ownerId === world.users.student.userId && String(item.gradeableKey).endsWith(`/${gradeable}`),
        );
      const version = Number(key(after)?.highestVersion);
      expect(version).toBe(Number(key(before)?.highestVersion ?? 0) + 1);
      expect(answer.json.data).toContain(`version ${version} `);
      const jobs = added(before, after, 'Jobs');
      // Only jobs (numbered by their tickets), not the counters kept beside them; an earlier version
      // still queued is superseded by this one in the same write.
      const written = jobs.filter((job) => /^\d+$/.test(String(job.job)));
      expect(written.filter((job) => job.state !== 'superseded').map((job) => job.version)).toEqual([version]);
      for (const job of written.filter((job) => job.state === 'superseded')) expect(Number(job.version)).toBeLessThan(version);
    },
  },
  {
    name: 'summary generation (generateSummaries)',
    send: () => api.postJson(`${course()}/reports/summaries`, {}, { ...world.tokens.instructor, Prefer: 'http-status' }),
    done: (before, after, answer) => {
      const courseItem = items(after, 'Courses').find((item) => item.term === world.course.term && item.course === world.course.course)!;
      const generation = (courseItem.summaries as { generation: string }).generation;
      expect(generation).toBe(answer.json.data.generation);
      const entries = items(after, 'Summaries').filter((item) => item.courseId === `${world.course.term}/${world.course.course}`);
      const current = entries.filter((item) => String(item.entry).startsWith(`${generation}#`));
      expect(current).toHaveLength(answer.json.data.summaries);
      // Older generations are unreachable once the pointer moved; only a failed removal (logged) leaves one behind.
    },
  },
];

/** The DynamoDB commands one undisturbed run sends, in order. */
async function commandsOf(run: () => Promise<unknown>): Promise<string[]> {
  const counter = injectFault(0, 'throttle');
  try {
    await run();
  } finally {
    counter.remove();
  }
  return counter.commands();
}

/**
 * The honest code of an error answer when the nth of the request's commands failed with `kind`: once an earlier write
 * went through, or when a write timed out after being sent, the outcome is unknown; otherwise a
 * failed condition is INTERNAL (retrying cannot make it hold) and the rest RETRYABLE.
 */
function expectedCode(
  commands: string[],
  nth: number,
  kind: Kind,
  refused: ReadonlySet<number> = new Set(),
  bookkeeping: ReadonlySet<number> = new Set(),
): string {
  // A bookkeeping write (a queue ticket taken or given up) changes nothing the request answers for.
  const isWrite = (command: string, index: number) =>
    !bookkeeping.has(index) && (WRITES.has(command) || command === 'TransactWriteItemsCommand' || command === 'BatchWriteItemCommand');
  // Another write the request sent (before the failed command, or beside it) may have taken effect,
  // unless DynamoDB refused it (a failed condition).
  if (commands.some((command, index) => index !== nth - 1 && isWrite(command, index) && !refused.has(index))) return 'UNKNOWN_OUTCOME';
  if (kind === 'timeout' && isWrite(commands[nth - 1]!, nth - 1)) return 'UNKNOWN_OUTCOME';
  return kind === 'condition' ? 'INTERNAL' : 'RETRYABLE';
}

/** The kinds of fault that can happen to a command (a condition only on conditional writes, …). */
const kindsFor = (command: string) => KINDS.filter((kind) => faultFor(kind, command) !== undefined);

describe('injected DynamoDB failures', () => {
  for (const operation of operations) {
    it(`${operation.name}: done, or nothing written with an honest error code`, async () => {
      const sequence = await commandsOf(async () => {
        const before = await state();
        const answer = await operation.send();
        expect(answer.json.status, answer.text).toBe('success');
        await operation.done(before, await state(), answer);
      });
      const commands = sequence.length;
      const outcomes: string[] = [];
      for (let nth = 1; nth <= commands; nth++) {
        for (const kind of kindsFor(sequence[nth - 1]!)) {
          const before = await state();
          const fault = injectFault(nth, kind);
          let answer: Answer;
          try {
            answer = await operation.send();
          } finally {
            fault.remove();
          }
          const after = await state();
          const where = `${operation.name}, command ${nth}/${commands} ${fault.fired() ?? `(${kind}: not applicable)`}: ${answer.text.slice(0, 200)}`;
          outcomes.push(`${nth}:${kind}:${answer.json.status}${answer.json.code ? `/${answer.json.code}` : ''}`);
          if (answer.json.status === 'success') {
            await operation.done(before, after, answer);
            continue;
          }
          expect(fault.fired(), where).toBeDefined();
          const unknown = answer.json.code === 'UNKNOWN_OUTCOME';
          const [was, is] = unknown ? [withoutJoblessTickets(before), withoutJoblessTickets(after)] : [before, after];
          expect(differences(was, is), where).toEqual([]);
          await operation.notAtAll?.(before, after);
          if (answer.json.status === 'error') {
            expect(answer.httpStatus, where).toBe(500);
            expect(Object.keys(answer.json), where).toEqual(['status', 'message', 'code']);
            expect(answer.json.code, where).toBe(expectedCode(fault.commands(), nth, kind, fault.refused(), fault.bookkeeping()));
          }
        }
      }
      expect(outcomes.length).toBe(sequence.reduce((sum, command) => sum + kindsFor(command).length, 0));
    }, 240_000);
  }

  it('a throttle of one attempt is absorbed by the SDK (maxAttempts 3)', async () => {
    const before = await state();
    const fault = injectFault(2, 'throttle', { firstAttemptOnly: true });
    let answer: Answer;
    try {
      answer = await operations[0]!.send();
    } finally {
      fault.remove();
    }
    expect(fault.fired()).toBeDefined();
    expect(answer.json.status, answer.text).toBe('success');
    await operations[0]!.done(before, await state(), answer);
  });
});

describe('honest answers about a submission', () => {
  const submit = (target: TestApi, key: string, headers: Record<string, string> = world.tokens.student, body: object = {}) =>
    target.postJson(
      `${course()}/gradeable/${gradeable}/upload`,
      { vcs_checkout: true, git_repo_id: 'none', ...body },
      { ...headers, Prefer: 'http-status', 'Idempotency-Key': key },
    );
  const highest = (snapshot: Snapshot) =>
    Number(
      items(snapshot, 'Submissions').find(
        (item) => item.ownerId === world.users.student.userId && String(item.gradeableKey).endsWith(`/${gradeable}`),
      )?.highestVersion ?? 0,
    );
  const unknownOutcome = /may or may not have been applied .*same Idempotency-Key/;

  /** A retry with the same key answers the version the lost attempt created, and creates nothing. */
  async function retryAnswersFirstOutcome(key: string, applied: Snapshot, version: number) {
    const retried = await submit(api, key);
    expect(retried.json.status, retried.text).toBe('success');
    expect(retried.json.data).toContain(`version ${version} `);
    const after = await state();
    expect(highest(after)).toBe(version);
    expect(differences(applied, after)).toEqual([]);
    expect((await submit(api, key)).json.data).toBe(retried.json.data);
  }

  it('a transaction DynamoDB applied whose answer was lost: UNKNOWN_OUTCOME; the same Idempotency-Key then answers that version, created once', async () => {
    const key = uniqueCode('key');
    const before = await state();
    const fault = injectFault(0, 'timeout', { everyCommand: 'TransactWriteItemsCommand', afterSending: true });
    let lost: Answer;
    try {
      lost = await submit(api, key);
    } finally {
      fault.remove();
    }
    expect(fault.fired(), lost.text).toContain('after DynamoDB applied it');
    expect([lost.httpStatus, lost.json.status, lost.json.code], lost.text).toEqual([500, 'error', 'UNKNOWN_OUTCOME']);
    expect(lost.json.message).toMatch(unknownOutcome);
    const applied = await state();
    const version = highest(before) + 1;
    expect(highest(applied), 'the lost attempt was written').toBe(version);
    // The lost attempt never woke the workers; each retry does (workers: 0 here, so they wait in the queue).
    const wakeUps = api.server.gradingQueue.depth();
    await retryAnswersFirstOutcome(key, applied, version);
    expect(api.server.gradingQueue.depth()).toBe(wakeUps + 2);
  });

  it('a transaction cancelled only for conflicts, attempt after attempt: RETRYABLE, and nothing was written', async () => {
    const before = await state();
    const fault = injectFault(0, 'conflict', { everyCommand: 'TransactWriteItemsCommand' });
    let answer: Answer;
    try {
      answer = await submit(api, uniqueCode('key'));
    } finally {
      fault.remove();
    }
    // transactWrite retried the conflict four times before giving up.
    expect(fault.commands().filter((command) => command === 'TransactWriteItemsCommand')).toHaveLength(5);
    expect([answer.httpStatus, answer.json.code], answer.text).toEqual([500, 'RETRYABLE']);
    expect(answer.json.message).toMatch(/nothing was changed/);
    expect(differences(before, await state())).toEqual([]);
  });

  describe("when the function's time runs out", () => {
    // middy answers 250 ms before the limit, while the handler is still running.
    const limitMs = 3_000;
    const heldMs = 4_500;
    let hurried: TestApi;
    beforeAll(async () => {
      hurried = await startTestApi({ workers: 0, functionTimeoutMs: limitMs, outboxRelayMs: 0 });
    });
    afterAll(() => hurried.close());

    it('with the transaction in flight: UNKNOWN_OUTCOME; once it lands, the same Idempotency-Key answers its version', async () => {
      const key = uniqueCode('key');
      const before = await state();
      const fault = injectFault(0, 'timeout', { everyCommand: 'TransactWriteItemsCommand', afterSending: true, delayMs: heldMs });
      let answer: Answer;
      const started = Date.now();
      try {
        answer = await submit(hurried, key);
        expect(Date.now() - started).toBeLessThan(heldMs);
        await sleep(heldMs + 500 - (Date.now() - started));
      } finally {
        fault.remove();
      }
      expect(fault.fired(), answer.text).toBeDefined();
      expect([answer.httpStatus, answer.json.code], answer.text).toEqual([500, 'UNKNOWN_OUTCOME']);
      expect(answer.json.message).toMatch(unknownOutcome);
      const applied = await state();
      const version = highest(before) + 1;
      expect(highest(applied), 'the transaction in flight was written after the answer').toBe(version);
      await retryAnswersFirstOutcome(key, applied, version);
    });

    it('before any write: RETRYABLE, and the handler, still running, writes nothing afterwards', async () => {
      const before = await state();
      // An instructor submitting for a student: the token check, then the student's enrollment (held), then the transaction.
      const fault = injectFault(2, 'timeout', { delayMs: heldMs });
      let answer: Answer;
      const started = Date.now();
      try {
        answer = await submit(hurried, uniqueCode('key'), world.tokens.instructor, { user_id: world.users.student.userId });
        expect(Date.now() - started).toBeLessThan(heldMs);
        await sleep(heldMs + 1_000 - (Date.now() - started));
      } finally {
        fault.remove();
      }
      expect(fault.commands(), answer.text).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand']);
      expect([answer.httpStatus, answer.json.code], answer.text).toEqual([500, 'RETRYABLE']);
      expect(differences(before, await state())).toEqual([]);
    });
  });
});

describe('injected DynamoDB failures in the grading worker', () => {
  const studentToken = () => world.tokens.student;
  const later = () => new Date(Date.now() + 16 * 60 * 1000);

  /** Grades whatever is queued or leased, so each attempt starts from one fresh queued job. */
  async function drain() {
    while ((await gradeNextJob()) !== 'idle');
    while ((await gradeNextJob(later())) !== 'idle');
  }
  async function queueOne(): Promise<number> {
    const answer = await api.postJson(
      `${course()}/gradeable/${gradeable}/upload`,
      { vcs_checkout: true, git_repo_id: 'none' },
      studentToken(),
    );
    expect(answer.json.status, answer.text).toBe('success');
    return Number(/version (\d+)/.exec(answer.json.data)![1]);
  }
  const submissionOf = (snapshot: Snapshot) =>
    items(snapshot, 'Submissions').find(
      (item) => item.ownerId === world.users.student.userId && String(item.gradeableKey).endsWith(`/${gradeable}`),
    )!;
  const versionState = (snapshot: Snapshot, version: number) =>
    (submissionOf(snapshot).versions as { version: number; state: string }[]).find((entry) => entry.version === version)?.state;
  const resultsOf = (snapshot: Snapshot, version: number) =>
    items(snapshot, 'Results').filter(
      (item) => String(item.submissionKey).endsWith(`/${world.users.student.userId}`) && Number(item.version) === version,
    );

  it('job claim and result write: graded once, or left for the next worker with nothing half-written', async () => {
    await drain();
    await queueOne();
    const sequence = await commandsOf(() => gradeNextJob());
    const commands = sequence.length;
    for (let nth = 1; nth <= commands; nth++) {
      for (const kind of kindsFor(sequence[nth - 1]!)) {
        await drain();
        const version = await queueOne();
        const before = await state();
        const fault = injectFault(nth, kind);
        let outcome: string;
        try {
          outcome = await gradeNextJob().catch((error: Error) => `threw ${error.name}`);
        } finally {
          fault.remove();
        }
        const after = await state();
        const where = `worker, command ${nth}/${commands} ${fault.fired() ?? `(${kind}: not applicable)`}: ${outcome}`;
        if (outcome === 'graded') {
          expect(versionState(after, version), where).toBe('graded');
          expect(resultsOf(after, version), where).toHaveLength(1);
          continue;
        }
        expect(fault.fired(), where).toBeDefined();
        expect(resultsOf(after, version), `${where}: results without a finished job`).toHaveLength(0);
        const claimed = versionState(after, version) === 'grading';
        if (!claimed) expect(differences(before, after), where).toEqual([]);
        // Claimed but not finished: the lease runs out and the next worker grades it, once.
        const next = claimed ? later() : new Date();
        expect(await gradeNextJob(next), where).toBe('graded');
        const recovered = await state();
        expect(versionState(recovered, version), where).toBe('graded');
        expect(resultsOf(recovered, version), where).toHaveLength(1);
      }
    }
  }, 120_000);
});
