import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '#shared/logger.ts';
import { fixtures } from '../grading/fixtures.ts';
import { createCourseWorld, type CourseWorld } from '../support/courses.ts';
import type { GitServer } from '../support/git-server.ts';
import { startTestApi, type Answer, type TestApi } from '../support/http.ts';
import type { WebhookReceiver } from '../support/webhook-receiver.ts';
import { greets, perStudentRepositories, selfHostedGradeableJson } from '../support/gradeables.ts';
import { startAllowedGitServer, startAllowedWebhookReceiver } from '../support/allowed-servers.ts';

/**
 * No log line contains a token, a password, the signing secret or a webhook secret: a full flow
 * through the local API (logins good and bad, course calls, a graded submission notified to a
 * webhook that fails once, an unexpected error) runs at log
 * level DEBUG while everything written to stdout and stderr is captured, then searched.
 */
const captured: string[] = [];
const originals = { stdout: process.stdout.write, stderr: process.stderr.write };
const capture = () =>
  function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
    captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    const callback = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  } as NodeJS.WriteStream['write'];

const tokens = new Set<string>();
const passwords = new Set<string>();
let api: TestApi;
let world: CourseWorld;
let git: GitServer;
let receiver: WebhookReceiver;

/** Remembers every token an answer carries. */
function remember(answer: Answer): Answer {
  const token = answer.json.data?.token;
  if (typeof token === 'string') tokens.add(token);
  return answer;
}

beforeAll(async () => {
  process.stdout.write = capture();
  process.stderr.write = capture();
  logger.setLogLevel('DEBUG');
  api = await startTestApi({ workers: 1 });
  world = await createCourseWorld(api);
  for (const user of Object.values(world.users)) passwords.add(user.password);
  for (const headers of Object.values(world.tokens)) if (headers.Authorization) tokens.add(headers.Authorization);
  git = await startAllowedGitServer({ [`pass-${world.users.student.userId}`]: fixtures.pass! });
  receiver = await startAllowedWebhookReceiver();
  vi.stubEnv('WEBHOOK_RETRY_SCHEDULE', '0.2');
}, 60_000);

afterAll(async () => {
  await api?.close();
  await git?.close();
  await receiver?.close();
  vi.unstubAllEnvs();
  logger.setLogLevel('ERROR');
  process.stdout.write = originals.stdout;
  process.stderr.write = originals.stderr;
});

describe('the logs of a full flow', () => {
  it('hold no token, password or signing secret', async () => {
    const { student, instructor, superuser } = world.users;
    const base = `/${world.course.term}/${world.course.course}`;

    // Logins: JSON, url-encoded and multipart; wrong passwords up to the lockout; unknown users; blank fields.
    remember(await api.postJson('/token', { user_id: student.userId, password: student.password }));
    const instructorToken = remember(await api.postForm('/token', { user_id: instructor.userId, password: instructor.password })).json.data
      .token as string;
    const multipart = new FormData();
    multipart.set('user_id', superuser.userId);
    multipart.set('password', superuser.password);
    const superToken = remember(await api.call('POST', '/token', { body: multipart })).json.data.token as string;
    for (let attempt = 0; attempt < 7; attempt++) {
      const wrong = `wrong-${randomUUID()}`;
      passwords.add(wrong);
      const answer = await api.postForm('/token', { user_id: world.users.mentor.userId, password: wrong }, { Prefer: 'http-status' });
      expect([401, 429]).toContain(answer.httpStatus);
    }
    const unknown = `unknown-${randomUUID()}`;
    passwords.add(unknown);
    expect((await api.postJson('/token', { user_id: `nobody-${randomUUID().slice(0, 8)}`, password: unknown })).json.status).toBe('fail');
    expect((await api.postJson('/token', { user_id: student.userId, password: '' })).json.status).toBe('fail');
    expect((await api.postJson('/token', { user_id: student.userId, password: { nested: student.password } })).json.status).toBe('fail');
    expect(
      (
        await api.call('POST', '/token', {
          headers: { 'Content-Type': 'application/json' },
          body: `{"user_id":"${student.userId}","password":"${student.password}"`,
        })
      ).json.status,
    ).toBe('fail');

    // A fresh token for the student (the one above was replaced), forged and malformed tokens.
    const studentToken = remember(await api.postJson('/token', { user_id: student.userId, password: student.password })).json.data
      .token as string;
    const [header, payload, signature] = studentToken.split('.');
    const forged = `${header}.${payload}.${signature!.split('').reverse().join('')}`;
    expect((await api.get('/me', { Authorization: forged })).json.status).toBe('fail');
    expect((await api.get('/me', { Authorization: `Bearer ${studentToken}x` })).json.status).toBe('fail');
    const asStudent = { Authorization: `Bearer ${studentToken}` };
    const asInstructor = { Authorization: instructorToken };
    const asSuperuser = { Authorization: superToken };

    // Course calls.
    const me = await api.get('/me', asStudent);
    expect(me.json.status, me.text).toBe('success');
    expect((await api.get('/token', asStudent)).json.status).toBe('success');
    expect((await api.get('/courses', asStudent)).json.status).toBe('success');
    expect((await api.get(`${base}/users`, asInstructor)).json.status).toBe('success');
    expect((await api.get(`${base}/graders`, asStudent)).json.status).toBe('fail');
    expect(
      (
        await api.postJson(
          '/terms',
          { term_id: `t_${randomUUID().slice(0, 8)}`, term_name: 'Log term', start_date: '2027-01-01', end_date: '2027-05-01' },
          asSuperuser,
        )
      ).json.status,
    ).toBe('success');
    expect(
      (
        await api.postJson(
          '/courses',
          {
            course_semester: world.course.term,
            course_title: `c_${randomUUID().slice(0, 8)}`,
            head_instructor: instructor.userId,
            base_course_semester: world.course.term,
            base_course_title: world.course.course,
          },
          asInstructor,
        )
      ).json.status,
    ).toBe('success');

    // A gradeable, a submission with an Idempotency-Key, grading, values and attempts.
    const upload = await api.postJson(
      `${base}/upload`,
      selfHostedGradeableJson('logs', perStudentRepositories(git.url).replace('{$gradeable_id}', 'pass'), {
        title: 'Logs',
        autograding: {
          test_cases: [greets(5)],
        },
      }),
      asInstructor,
    );
    expect(upload.json.status, upload.text).toBe('success');
    expect((await api.get(`${base}/logs/download`, asInstructor)).json.status).toBe('success');
    // A webhook for the grade (its secret is shown once, in this answer), answering 500 once.
    const webhook = await api.postJson(`${base}/webhooks`, { url: `${receiver.url}/logs`, events: ['submission.graded'] }, asInstructor);
    expect(webhook.json.status, webhook.text).toBe('success');
    const webhookSecret = webhook.json.data.secret as string;
    receiver.answer('/logs', [500]);
    const submit = () =>
      api.postForm(
        `${base}/gradeable/logs/upload`,
        { vcs_checkout: 'true', git_repo_id: 'x' },
        { ...asStudent, 'Idempotency-Key': randomUUID() },
      );
    expect((await submit()).json.status).toBe('success');
    let values: Answer | undefined;
    for (let poll = 0; poll < 200; poll++) {
      values = await api.get(`${base}/gradeable/logs/values`, asStudent);
      if (values.json.data?.autograding_complete) break;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(values!.json.data).toMatchObject({ autograding_complete: true, total_points: 5 });
    expect((await api.get(`${base}/gradeable/logs/attempts`, asStudent)).json.status).toBe('success');
    await receiver.waitFor('/logs', 2);

    // An unexpected error: the tables are gone for one authenticated request.
    const prefix = process.env.TABLE_PREFIX;
    process.env.TABLE_PREFIX = `missing-${randomUUID().slice(0, 8)}-`;
    const broken = await api.get('/me', asStudent).finally(() => {
      process.env.TABLE_PREFIX = prefix;
    });
    expect(broken.json.status).toBe('error');

    // Logging out, with the token and with credentials.
    expect((await api.postJson('/token/invalidate', {}, asStudent)).json.status).toBe('success');
    expect((await api.postForm('/token/invalidate', { user_id: instructor.userId, password: instructor.password })).json.status).toBe(
      'success',
    );

    // Everything written; the secret file's secrets (current, and previous if any).
    const text = captured.join('');
    expect(text, 'the unexpected error was logged').toContain('Unhandled error');
    expect(text, 'INFO lines were logged too').toContain('Grading wake-up');
    const secretFile = await readFile(process.env.SIGNING_SECRET_FILE!, 'utf8');
    const secrets = secretFile
      .split('\n')
      .map((line) => line.trim().split(/\s+/)[0]!)
      .filter((secret) => secret.length > 0);
    expect(secrets.length).toBeGreaterThan(0);
    expect(tokens.size).toBeGreaterThanOrEqual(10);
    expect(passwords.size).toBeGreaterThanOrEqual(15);

    const leaks: string[] = [];
    const look = (kind: string, value: string) => {
      if (text.includes(value))
        leaks.push(`${kind} (${value.length} characters) found in: ${lineWith(text, value, [...tokens, ...passwords, ...secrets])}`);
    };
    for (const token of tokens) {
      look('a token', token);
      look('a token signature', token.split('.')[2]!);
    }
    for (const password of passwords) look('a password', password);
    for (const secret of secrets) look('the signing secret', secret);
    look('a webhook secret', webhookSecret);
    look('a webhook secret', webhookSecret.replace(/^whsec_/, ''));
    expect(leaks).toEqual([]);
  }, 120_000);
});

/** The captured line holding `value`, with every sensitive value masked (longest first). */
function lineWith(text: string, value: string, sensitive: string[]): string {
  const line = text.split('\n').find((candidate) => candidate.includes(value)) ?? '';
  const masks = [...sensitive, ...sensitive.map((token) => token.split('.')[2] ?? '')].filter((mask) => mask.length >= 8);
  return masks
    .sort((a, b) => b.length - a.length)
    .reduce((masked, mask) => masked.replaceAll(mask, '<hidden>'), line)
    .slice(0, 400);
}
