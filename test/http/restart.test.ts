import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfHostedGradeableJson } from '../support/gradeables.ts';
import { startAllowedWebhookReceiver } from '../support/allowed-servers.ts';
import type { WebhookReceiver } from '../support/webhook-receiver.ts';
import { client, dynamoDbLocalServing, killStartedServers, login, startServer, until, type Envelope } from '../support/npm-start.ts';

// `npm start` keeps its queues in its process: these tests kill the server's whole process group
// (the API, DynamoDB Local, the sandboxes) and start it again on the same data folder.

const GRADEABLE = 'slow_homework';
const HOOK = '/restart-hook';
const attemptsPath = `/f26/sample/gradeable/${GRADEABLE}/attempts`;
const submission = { vcs_checkout: true, git_repo_id: 'none' };

describe('npm start, killed and started again on the same data folder', () => {
  let dataDir: string;
  let receiver: WebhookReceiver;
  let settings: Record<string, string>;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'course-api-restart-'));
    receiver = await startAllowedWebhookReceiver();
    settings = {
      GRADING_WORKERS: '2',
      SUBMISSIONS_PER_MINUTE: '100',
      WEBHOOK_ALLOWED_HOSTS: receiver.host,
      // Retries every 2 s: at the kill, deliveries wait for a retry due within seconds.
      WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 20 }, () => '2').join(','),
    };
  });

  afterAll(async () => {
    // Whatever a failure left running (the group is detached from the test's).
    await killStartedServers();
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}-repositories`, { recursive: true, force: true });
  });

  it('grades every job queued or being graded at the kill, and sends every delivery whose retry was waiting', async () => {
    const first = startServer(dataDir, settings);
    const firstUrl = await first.url;
    const instructor = client(firstUrl, await login(firstUrl, 'instructor'));
    // The instructor's versions read a copy of the demo student's repository; each test case takes a few seconds, so a job seen grading is still grading at the kill.
    await cp(`${dataDir}-repositories/hw_vcs/student`, `${dataDir}-repositories/hw_vcs/instructor`, { recursive: true });
    const document = selfHostedGradeableJson(GRADEABLE, `file://${dataDir}-repositories/hw_vcs/{$user_id}`, {
      autograding: { test_cases: [{ name: 'Slow', command: 'sleep 8; sh hello.sh', points_available: 1, expect: { exit_code: 0 } }] },
    });
    expect((await instructor.post('/f26/sample/upload', document)).status).toBe('success');
    const hook = await instructor.post('/f26/sample/webhooks', { url: `${receiver.url}${HOOK}`, events: ['submission.graded'] });
    expect(hook.status, JSON.stringify(hook)).toBe('success');
    const webhookId = (hook.data as { id: string }).id;
    receiver.answer(HOOK, [], 500);

    // The rush.
    // As a client does: an `error` answer (a transaction that met the workers' writes on a loaded
    // machine) is sent again; a second version where the first did land is harmless here.
    const submit = async () => {
      let answer: unknown;
      for (let attempt = 0; attempt < 5; attempt++) {
        answer = await instructor.post(`/f26/sample/gradeable/${GRADEABLE}/upload`, submission).catch((error: unknown) => error);
        if ((answer as Envelope).status !== 'error') break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return answer;
    };
    // One submitter's versions contend for one submission item: sent one after another.
    const firstWave: unknown[] = [];
    for (let count = 0; count < 20; count++) firstWave.push(await submit());
    const refused = firstWave.filter((answer) => (answer as Envelope).status !== 'success');
    expect(refused.map((answer) => (answer instanceof Error ? answer.message : JSON.stringify(answer)))).toEqual([]);
    // Mid-grading: one version graded (its delivery refused and waiting for its retry), another being graded.
    await until(
      'a version is being graded and a delivery waits for its retry',
      async () => {
        const versions = ((await instructor.get(attemptsPath)).data ?? []) as { grading_state: string }[];
        return receiver.received.some((request) => request.path === HOOK) && versions.some((version) => version.grading_state === 'grading')
          ? true
          : undefined;
      },
      () => first.output().replace(/^(GET|POST) .*\n/gm, ''),
    );
    // Mid-rush and mid-grading: killed while further versions are being submitted, as soon as a job
    // is seen to have started grading since the previous look (its test case lasts 8 s, so it is
    // still being graded at the kill, however slowly the machine answers).
    let secondWaveAnswers = 0;
    const secondWave = (async () => {
      for (let count = 0; count < 20; count++) {
        await submit();
        secondWaveAnswers++;
      }
    })();
    await until('a version of the second wave is in', async () => (secondWaveAnswers > 0 ? true : undefined), first.output);
    let gradingBefore: Set<number> | undefined;
    await until(
      'a version starts grading',
      async () => {
        const answer = await instructor.get(attemptsPath);
        // An answer that is not the list says nothing of what started since.
        if (answer.status !== 'success') return undefined;
        const versions = answer.data as { version: number; grading_state: string }[];
        const grading = new Set(versions.filter((version) => version.grading_state === 'grading').map((version) => version.version));
        const started = gradingBefore !== undefined && [...grading].some((version) => !gradingBefore!.has(version));
        gradingBefore = grading;
        return started ? true : undefined;
      },
      first.output,
    );
    await first.killGroup();
    await secondWave;
    await until('DynamoDB Local is gone', async () => (dynamoDbLocalServing(dataDir).length === 0 ? true : undefined), first.output);
    const refusedBeforeKill = receiver.received.length;
    receiver.answer(HOOK, [], 200);

    const second = startServer(dataDir, settings);
    try {
      const url = await second.url;
      expect(second.output()).toMatch(/Resumed from the data folder: \d+ grading job\(s\) queued \([1-9]\d* taken from a stopped server\)/);
      const again = client(url, await login(url, 'instructor'));
      let states = '';
      const versions = await until(
        'every version is graded',
        async () => {
          const listed = (await again.get(attemptsPath)).data as { version: number; grading_state: string }[];
          states = listed.map((version) => `${version.version}:${version.grading_state}`).join(' ');
          // A newer version supersedes a queued one of the same owner: never graded, never left waiting.
          return listed.every((version) => ['graded', 'superseded'].includes(version.grading_state)) ? listed : undefined;
        },
        () => `${states}\n${second.output().replace(/^(GET|POST) .*\n/gm, '')}`,
      );
      expect(versions.length).toBeGreaterThanOrEqual(20);
      expect(versions.filter((version) => version.grading_state === 'graded').length).toBeGreaterThan(1);
      // Every delivery refused before the kill, waiting for its retry then, arrives once started again.
      const waiting = new Set(receiver.received.slice(0, refusedBeforeKill).map((request) => String(request.headers['webhook-id'])));
      expect(waiting.size).toBeGreaterThan(0);
      await until(
        'every delivery is delivered',
        async () => {
          const answer = await again.get(`/f26/sample/webhooks/${webhookId}/deliveries?page_size=100`);
          const deliveries = answer.data as { id: string; state: string }[];
          const delivered = new Set(deliveries.filter((delivery) => delivery.state === 'delivered').map((delivery) => delivery.id));
          return deliveries.length === delivered.size && [...waiting].every((id) => delivered.has(id)) ? true : undefined;
        },
        second.output,
      );
    } finally {
      await second.stop();
    }
  }, 300_000);
});
