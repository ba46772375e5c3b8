/**
 * A student's launch as an LMS shows the tool: inside an iframe of the LMS's course page, in a real
 * headless Chromium that blocks third-party cookies. The LMS (the test platform, with its course
 * page) is on one site (`127.0.0.1`), the tool (the API and a tiny frontend page) on another
 * (`localhost`). In the iframe: the platform's login initiation posted to `/api/lti/login`, the
 * platform's authentication, its form post to `/api/lti/launch`, the 303 to `LTI_FRONTEND_URL`
 * with the code in the fragment, and the page trading the code at `POST /api/token` and submitting
 * files with the launch session; once autograded, the LMS's grade book shows the score with the
 * grade's timestamp. A control in the same browser shows a cookie the tool's site sets
 * inside that iframe is not kept (and is kept when the same page is opened on its own), so the
 * launch would fail here if it needed a cookie.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkAnswer, describeMismatch } from '#infra/answer-check.ts';
import { getItems } from '#shared/data/items.ts';
import { recordedResultsRef } from '#shared/data/results.ts';
import { gradeableKey } from '#shared/data/submissions.ts';
import { createCourseWorld, uniqueCode, type CourseWorld } from '../support/courses.ts';
import { openDates } from '../support/dates.ts';
import { greets, uploadGradeable } from '../support/gradeables.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { ROLES, startLtiPlatform, type LtiTestPlatform } from '../support/lti-platform.ts';
import { lmsSub, registerPlatform } from '../support/lti-sessions.ts';
import { closeAll } from '../support/allowed-servers.ts';
import type { TestUser } from '../support/users.ts';
import { chromiumLaunch, requireChromium } from '../support/chromium.ts';

const CONTEXT = 'lms-iframe-course';

let api: TestApi;
let platform: LtiTestPlatform;
let world: CourseWorld;
let gradeableId: string;
/** The tool's frontend (site `localhost`): its page and the cookie probe. */
let frontend: Server;
let frontendOrigin: string;
/** The LMS's course page (site `127.0.0.1`, as the platform). */
let lms: Server;
let lmsOrigin: string;
let profile: string;
let browser: BrowserContext;
/** The Cookie header of each probe request the tool's site received, by the probe's name. */
const probes = new Map<string, string | undefined>();
/** Every answer of the API the browser got, each checked against its route's contract by the launch's test. */
const apiAnswers: Promise<string | undefined>[] = [];

/** Serves `handler` on 127.0.0.1 at a free port. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
const portOf = (server: Server) => (server.address() as AddressInfo).port;
const html = (res: ServerResponse, body: string, headers: Record<string, string> = {}) =>
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(body);
const escape = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/**
 * The tool's frontend page at LTI_FRONTEND_URL, as a real frontend would be: it sets a cookie of
 * its site (the control), takes the code from the fragment, trades it, reads the launch and submits
 * to the launched gradeable, then shows what happened as JSON in `#result`.
 */
const frontendPage = (apiUrl: string) => `<!doctype html>
<meta charset="utf-8"><title>Tool</title><pre id="result"></pre>
<script>
(async () => {
  const api = ${JSON.stringify(apiUrl)};
  const shown = {};
  try {
    document.cookie = 'script_probe=1; SameSite=None; Secure; Path=/';
    shown.scriptCookie = document.cookie;
    await fetch('/probe?name=' + encodeURIComponent(window === window.top ? 'top' : 'iframe'), { credentials: 'include' });
    const code = new URLSearchParams(location.hash.slice(1)).get('lti_code');
    if (!code) throw new Error('no lti_code in the fragment');
    history.replaceState(null, '', location.pathname);
    const traded = await (await fetch(api + '/token', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ lti_code: code }),
    })).json();
    if (traded.status !== 'success') throw new Error('the code was refused: ' + JSON.stringify(traded));
    const session = { authorization: traded.data.token };
    const info = await (await fetch(api + '/token', { headers: session })).json();
    shown.launch = info.data.launch;
    const { semester, course, gradeable_id } = info.data.launch;
    const files = new FormData();
    files.append('files', new Blob(['echo "Hello from the LMS"\\n']), 'hello.sh');
    const path = api + '/' + semester + '/' + course + '/gradeable/' + gradeable_id + '/files';
    shown.submitted = await (await fetch(path, { method: 'POST', headers: session, body: files })).json();
  } catch (error) {
    shown.error = String(error);
  }
  document.getElementById('result').textContent = JSON.stringify(shown);
})();
</script>`;

/** The LMS's course page: the tool's iframe, and the login initiation posted into it, as Canvas does. */
const coursePage = (login: { url: string; fields: Record<string, string> }) => `<!doctype html>
<meta charset="utf-8"><title>CS 101 — Homework</title>
<h1>CS 101</h1>
<form id="launch" method="post" target="tool" action="${escape(login.url)}">
${Object.entries(login.fields)
  .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
  .join('\n')}
</form>
<iframe name="tool" title="Tool" width="900" height="600"></iframe>
<script>document.getElementById('launch').submit();</script>`;

let nextCoursePage: string | undefined;

beforeAll(async () => {
  requireChromium();
  frontend = await serve((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/probe') {
      probes.set(url.searchParams.get('name') ?? '', req.headers.cookie);
      res.writeHead(204).end();
      return;
    }
    if (url.pathname === '/lti') {
      // The control: a cookie of the tool's site, as a tool binding its state to a cookie would set it.
      html(res, frontendPage(api.url), { 'set-cookie': 'header_probe=1; SameSite=None; Secure; Path=/' });
      return;
    }
    res.writeHead(404).end();
  });
  frontendOrigin = `http://localhost:${portOf(frontend)}`;
  lms = await serve((req, res) => {
    if (req.url === '/course' && nextCoursePage) html(res, nextCoursePage);
    else res.writeHead(404).end();
  });
  lmsOrigin = `http://127.0.0.1:${portOf(lms)}`;

  // The outbox relay runs when the test asks: the score is then sent to the LMS at once.
  api = await startTestApi({ workers: 1, outboxRelayMs: 0, corsOrigins: [frontendOrigin] });
  expect(new URL(api.url).hostname).toBe('localhost');
  platform = await startLtiPlatform(api.url);
  expect(new URL(platform.issuer).hostname).toBe('127.0.0.1');
  vi.stubEnv('LTI_ALLOWED_HOSTS', platform.host);
  vi.stubEnv('LTI_FRONTEND_URL', `${frontendOrigin}/lti`);
  world = await createCourseWorld(api);
  await registerPlatform(api, world, platform, [world.users.instructor, world.users.student]);

  // The instructor's launch links the LMS course to the course here.
  const instructorLaunch = await platform.launch(lmsSub(world.users.instructor), { roles: [ROLES.instructor], contextId: CONTEXT });
  const location = instructorLaunch.headers.get('location') ?? '';
  expect(instructorLaunch.status, await instructorLaunch.text()).toBe(303);
  const code = new URLSearchParams(new URL(location).hash.slice(1)).get('lti_code') ?? '';
  const session = await api.postJson('/token', { lti_code: code }, { Prefer: 'http-status' });
  expect(session.json.status, session.text).toBe('success');
  const linked = await api.postJson(
    `/${world.course.term}/${world.course.course}/lti/link`,
    { section: '1' },
    {
      Authorization: session.json.data.token as string,
      Prefer: 'http-status',
    },
  );
  expect(linked.json.status, linked.text).toBe('success');

  gradeableId = uniqueCode('lms');
  await uploadGradeable(api, world, {
    id: gradeableId,
    title: 'Homework from the LMS',
    type: 'Electronic File',
    dates: openDates(),
    autograding: { test_cases: [greets(5)] },
  });

  profile = await mkdtemp(join(tmpdir(), 'lti-iframe-'));
  // Third-party cookies blocked, as the browser's settings "Block third-party cookies" does.
  await mkdir(join(profile, 'Default'), { recursive: true });
  await writeFile(
    join(profile, 'Default', 'Preferences'),
    JSON.stringify({ profile: { cookie_controls_mode: 1, block_third_party_cookies: true } }),
  );
  browser = await chromium.launchPersistentContext(profile, {
    ...chromiumLaunch,
  });
  browser.on('response', (response) => {
    const request = response.request();
    if (!response.url().startsWith(`${api.url}/`) || request.method() === 'OPTIONS') return;
    apiAnswers.push(
      (async () => {
        const status = response.status();
        const body = status >= 300 && status < 400 ? '' : await response.text().catch(() => '');
        const mismatch = checkAnswer(
          { method: request.method(), path: new URL(response.url()).pathname },
          {
            httpStatus: status,
            contentType: await response.headerValue('content-type'),
            body,
            location: await response.headerValue('location'),
          },
        );
        return mismatch && describeMismatch(mismatch);
      })(),
    );
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  await closeAll(
    platform,
    api,
    ...[frontend, lms].map((server) => ({
      close: () =>
        new Promise<void>((resolve) => {
          server?.closeAllConnections();
          if (server) server.close(() => resolve());
          else resolve();
        }),
    })),
  );
});

/** The student's browser: signed in at the LMS (its session cookies, of the LMS's own site), on the course page. */
async function openCoursePage(user: TestUser, gradeable: string): Promise<Page> {
  await browser.addCookies((await platform.sessionCookies(lmsSub(user))).map(({ name, value }) => ({ name, value, url: platform.issuer })));
  nextCoursePage = coursePage(
    platform.loginInitiation(lmsSub(user), { roles: [ROLES.learner], contextId: CONTEXT, custom: { gradeable_id: gradeable } }),
  );
  const page = await browser.newPage();
  await page.goto(`${lmsOrigin}/course`);
  return page;
}

/** The score the LMS's grade book holds for the user on the gradeable, once grading and the LTI score queue have sent it (polled). */
async function platformScore(user: TestUser) {
  for (let poll = 0; poll < 600; poll++) {
    await api.server.webhookOutbox.run();
    await api.server.ltiScoreQueue.idle();
    const score = platform.grades.scoreOf(CONTEXT, gradeableId, lmsSub(user));
    if (score?.gradingProgress === 'FullyGraded') return score;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('no graded score reached the LMS');
}

/** What the tool's frontend page shows once it is done (the API's answers as it got them). */
interface Shown {
  readonly scriptCookie?: string;
  readonly launch?: Record<string, unknown>;
  readonly submitted?: unknown;
  readonly error?: string;
}

async function shownBy(frame: Frame): Promise<Shown> {
  const result = frame.locator('#result');
  await expect.poll(async () => (await result.textContent()) ?? '', { timeout: 60_000 }).not.toBe('');
  return JSON.parse((await result.textContent())!) as Shown;
}

describe('a launch inside the LMS’s iframe, third-party cookies blocked', () => {
  it('launches the student, trades the code and submits with the launch session, all inside the iframe, with no cookie kept; the LMS gets the score', async () => {
    const page = await openCoursePage(world.users.student, gradeableId);
    const frame = await (await page.waitForSelector('iframe[name="tool"]')).contentFrame();
    await expect.poll(() => frame!.url(), { timeout: 60_000 }).toBe(`${frontendOrigin}/lti`);
    const shown = await shownBy(frame!);
    await mkdir('test-output', { recursive: true });
    await page.screenshot({ path: 'test-output/lti-iframe-launch.png' });

    expect(shown.error).toBeUndefined();
    expect(shown.launch).toMatchObject({
      semester: world.course.term,
      course: world.course.course,
      gradeable_id: gradeableId,
      roles: ['Student'],
      message_type: 'LtiResourceLinkRequest',
    });
    expect(shown.submitted).toEqual({ status: 'success', data: `Successfully uploaded version 1 for Homework from the LMS` });

    // The control: the tool's site set two cookies inside the iframe (by header and by script); neither was kept.
    expect(shown.scriptCookie).toBe('');
    expect(probes.has('iframe')).toBe(true);
    expect(probes.get('iframe')).toBeUndefined();
    expect((await browser.cookies(frontendOrigin)).map((cookie) => cookie.name)).toEqual([]);

    // The submission is there, as the instructor reads it over the API.
    const submissions = await api.get(
      `/${world.course.term}/${world.course.course}/gradeable/${gradeableId}/values?user_id=${world.users.student.userId}`,
      { ...world.tokens.instructor, Prefer: 'http-status' },
    );
    expect(submissions.json.status, submissions.text).toBe('success');
    expect(submissions.json.data).toMatchObject({ highest_version: 1 });

    expect((await Promise.all(apiAnswers)).filter(Boolean)).toEqual([]);
    expect(apiAnswers.length).toBeGreaterThanOrEqual(4);

    // Once autograded, the LMS's grade book shows the score, timestamped with the grade.
    const score = await platformScore(world.users.student);
    const { results } = await getItems({
      results: recordedResultsRef(gradeableKey(world.course.term, world.course.course, gradeableId), world.users.student.userId, 1),
    });
    expect(score).toEqual({
      userId: lmsSub(world.users.student),
      scoreGiven: 5,
      scoreMaximum: 5,
      activityProgress: 'Completed',
      gradingProgress: 'FullyGraded',
      timestamp: results?.gradedAt,
    });
  }, 180_000);

  it('keeps the same cookies when the tool’s page is opened on its own (the control above can see a kept cookie)', async () => {
    const page = await browser.newPage();
    await page.goto(`${frontendOrigin}/lti`);
    const shown = await shownBy(page.mainFrame());
    expect(shown.error).toBe('Error: no lti_code in the fragment');
    expect(shown.scriptCookie).toContain('script_probe=1');
    expect(probes.get('top')).toContain('header_probe=1');
    expect((await browser.cookies(frontendOrigin)).map((cookie) => cookie.name).sort()).toEqual(['header_probe', 'script_probe']);
  }, 60_000);
});
