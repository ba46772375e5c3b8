import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failsOf } from '#shared/http/openapi.ts';
import { contracts } from '#functions/contracts.ts';
import { inputOf } from '#shared/http/request.ts';
import { routeKeys, routes, type RouteName } from '#functions/definitions.ts';
import type { RouteDefinition, RouteInput } from '#shared/http/routes.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { chromiumLaunch, requireChromium } from '../support/chromium.ts';

/**
 * The reference page in a real headless browser (Debian's chromium, installed by .ci/run): it
 * loads with no console error and nothing from elsewhere, shows every route with its parameters,
 * body encodings and fail messages, and a "try it" login followed by an authenticated call works
 * against the same server. The screenshot is kept in test-output/docs-page.png.
 */
let api: TestApi;
let origin: string;
let user: TestUser;
let profile: string;
let browser: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];
const requested: string[] = [];
let loadMs = 0;

beforeAll(async () => {
  requireChromium();
  api = await startTestApi({ workers: 0 });
  origin = api.url.replace(/\/api$/, '');
  user = await createUser('user', 'docs');
  profile = await mkdtemp(join(tmpdir(), 'docs-browser-'));
  browser = await chromium.launchPersistentContext(profile, {
    ...chromiumLaunch,
    viewport: { width: 1280, height: 900 },
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(String(error)));
  page.on('request', (request) => requested.push(request.url()));
  const started = performance.now();
  await page.goto(`${origin}/api/docs`);
  await page
    .locator('.opblock-summary-path[data-path^="/api/"]')
    .nth(routeKeys.length - 1)
    .waitFor({ timeout: 90_000 });
  loadMs = Math.round(performance.now() - started);
}, 150_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

const operation = (method: string, path: string) =>
  page.locator(`.opblock.opblock-${method.toLowerCase()}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });

describe('the reference page in a browser', () => {
  it('loads with no console error, fetching nothing but this API', async () => {
    expect(consoleErrors).toEqual([]);
    expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual([]);
    expect(requested).toContain(`${origin}/api/openapi.json`);
    await mkdir('test-output', { recursive: true });
    await writeFile('test-output/docs-load.txt', `GET /api/docs until every operation is shown: ${loadMs} ms\n`);
  });

  it('lists every route of the route table, aliases included', async () => {
    // Beside the routes, the outgoing webhook requests are shown, under Webhooks.
    expect(await page.locator('.opblock-summary-path[data-path^="/api/"]').count()).toBe(routeKeys.length);
    for (const key of routeKeys) expect(await operation(key.method, key.path).count(), `${key.method} ${key.path}`).toBe(1);
    await page.screenshot({ path: 'test-output/docs-page.png', fullPage: true });
  });

  it('shows each route’s parameters, body encodings, fail messages and the Prefer: http-status option', async () => {
    // Each operation opened as a reader would, read, and closed again (all open at once, the page crawls).
    for (const [name, route] of Object.entries(routes) as [RouteName, RouteDefinition][]) {
      const block = operation(route.method, route.path);
      await block.locator('.opblock-summary').first().click();
      const body = block.locator('.opblock-body');
      await body.waitFor({ timeout: 30_000 });
      // The block is attached before Swagger UI renders into it: on a busy machine, wait for its text.
      let text = await body.innerText();
      for (let waited = 0; text.trim() === '' && waited < 30_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        text = await body.innerText();
      }
      const where = `${route.method} ${route.path}`;
      for (const parameter of [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!)) expect(text, where).toContain(parameter);
      const declared: RouteInput = inputOf(route);
      for (const parameter of [...Object.keys(declared.query ?? {}), ...Object.keys(declared.headers ?? {})])
        expect(text, where).toContain(parameter);
      if (!contracts[name].raw && !contracts[name].platform) expect(text, where).toContain('Prefer');
      if (route.etag) expect(text, where).toContain('If-None-Match');
      // As a browser shows a message: without Markdown's backticks, runs of spaces as one.
      const shown = (message: string) => message.replaceAll('`', '').replace(/\s+/g, ' ');
      for (const fail of failsOf(route, contracts[name])) expect(shown(text), `${where}: ${fail.message}`).toContain(shown(fail.message));
      const encodings = await body.locator('.opblock-section-request-body select option').allInnerTexts();
      // A platform-facing route (the LTI login) takes a browser's form only.
      if (declared.body && contracts[name].platform) expect(encodings, where).toEqual(['application/x-www-form-urlencoded']);
      else if (declared.body) {
        expect(encodings, where).toEqual([
          ...(declared.csv ? ['text/csv'] : []),
          'application/json',
          'application/x-www-form-urlencoded',
          'multipart/form-data',
        ]);
      }
      await block.locator('.opblock-summary').first().click();
    }
    expect(consoleErrors).toEqual([]);
  }, 240_000);

  it('tries a login, then an authenticated call with the token it got, against this server', async () => {
    const login = operation('POST', '/api/token');
    await login.locator('.opblock-summary').first().click();
    await login.locator('button.try-out__btn').click();
    await login.locator('textarea.body-param__text').fill(JSON.stringify({ user_id: user.userId, password: user.password }));
    await login.locator('button.execute').click();
    await expect
      .poll(() => login.locator('.live-responses-table tr.response .response-col_status').first().innerText(), { timeout: 15_000 })
      .toBe('200');
    expect(await login.locator('.live-responses-table tr.response .response-col_description').first().innerText()).toContain('"token"');

    const me = operation('GET', '/api/me');
    await me.locator('.opblock-summary').first().click();
    await me.locator('button.try-out__btn').click();
    await me.locator('button.execute').click();
    await expect
      .poll(() => me.locator('.live-responses-table tr.response .response-col_status').first().innerText(), { timeout: 15_000 })
      .toBe('200');
    const answer = await me.locator('.live-responses-table tr.response .response-col_description').first().innerText();
    expect(answer).toContain(`"user_id": "${user.userId}"`);
    expect(answer).toContain('"status": "success"');
    await me.scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-output/docs-try-it.png' });
    expect(consoleErrors).toEqual([]);
  }, 60_000);
});
