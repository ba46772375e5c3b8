import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Endpoint, type LocalS3Endpoint } from '#infra/local/s3-endpoint.ts';
import { checkedFetch, startTestApi, type TestApi } from '../support/http.ts';
import { killStartedServers, startServer, type StartedServer } from '../support/npm-start.ts';
import { chromiumLaunch, requireChromium } from '../support/chromium.ts';

/**
 * CORS_ORIGINS under `npm start`: the API and the local S3 endpoint answer a page of a listed
 * origin as API Gateway's CORS configuration and the bucket's CORS rule would, and nothing else.
 * First the answers themselves, then a real headless Chromium on pages of other origins.
 */
const PAGE = 'http://app.test:5173';
const OTHER = 'http://elsewhere.test:8080';

/** An OPTIONS preflight from `origin` for `method` with `headers`: answered before any route, so with no envelope to check. */
const preflight = (url: string, origin: string, method: string, headers = 'authorization,content-type,idempotency-key') =>
  // eslint-disable-next-line no-restricted-globals -- a preflight, answered by no route
  fetch(url, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers },
  });

const corsHeaders = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));

describe('CORS of the local API', () => {
  let withCors: TestApi;
  let without: TestApi;

  beforeAll(async () => {
    [withCors, without] = await Promise.all([startTestApi({ workers: 0, corsOrigins: [PAGE] }), startTestApi({ workers: 0 })]);
  });
  afterAll(async () => {
    await withCors?.close();
    await without?.close();
  });

  it('answers a preflight from a listed origin with its methods, headers and max age, before any function', async () => {
    const answer = await preflight(`${withCors.url}/token`, PAGE, 'POST');
    expect(answer.status).toBe(204);
    const headers = corsHeaders(answer);
    expect(headers['access-control-allow-origin']).toBe(PAGE);
    expect(headers['access-control-allow-methods']!.split(',')).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']));
    expect(headers['access-control-allow-headers']!.split(',')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'if-match', 'prefer']),
    );
    expect(headers['access-control-max-age']).toBe('3600');
    expect(answer.headers.get('vary')).toBe('Origin');
  });

  it('adds the origin and the headers a page may read to the answers of a listed origin', async () => {
    const answer = await checkedFetch(`${withCors.url}/auth`, { headers: { Origin: PAGE } });
    expect(((await answer.json()) as { status: string }).status).toBe('success');
    expect(answer.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(answer.headers.get('access-control-expose-headers')!.split(',')).toEqual(
      expect.arrayContaining(['etag', 'link', 'retry-after', 'preference-applied']),
    );
  });

  it('gives an origin not listed no CORS header, on a preflight or an answer', async () => {
    const refused = await preflight(`${withCors.url}/token`, OTHER, 'POST');
    expect(refused.status).toBe(204);
    expect(corsHeaders(refused)).toEqual({});
    const answer = await checkedFetch(`${withCors.url}/auth`, { headers: { Origin: OTHER } });
    expect(((await answer.json()) as { status: string }).status).toBe('success');
    expect(corsHeaders(answer)).toEqual({});
  });

  it('has no CORS at all without CORS_ORIGINS: a preflight is an unknown route, as before', async () => {
    const answer = await preflight(`${without.url}/token`, PAGE, 'POST');
    expect(corsHeaders(answer)).toEqual({});
    expect(((await answer.json()) as { status: string }).status).toBe('fail');
    expect(corsHeaders(await checkedFetch(`${without.url}/auth`, { headers: { Origin: PAGE } }))).toEqual({});
  });
});

/** A GET from a page of `origin`, to the local S3 endpoint (not the API). */
// eslint-disable-next-line no-restricted-globals -- the local S3 endpoint, not the API
const s3Get = (url: string, origin: string) => fetch(url, { headers: { Origin: origin } });

describe('CORS of the local S3 endpoint', () => {
  let directory: string;
  let withCors: LocalS3Endpoint;
  let without: LocalS3Endpoint;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 's3-cors-'));
    withCors = await startS3Endpoint({ directory: join(directory, 'a'), bucket: 'submissions', corsOrigins: [PAGE] });
    without = await startS3Endpoint({ directory: join(directory, 'b'), bucket: 'submissions' });
  });
  afterAll(async () => {
    await withCors?.close();
    await without?.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('answers a preflight as the bucket’s CORS rule does: a listed origin may POST and GET with any header', async () => {
    const answer = await preflight(`${withCors.url}/submissions`, PAGE, 'POST', 'x-amz-meta-a');
    expect(answer.status).toBe(200);
    expect(corsHeaders(answer)).toMatchObject({
      'access-control-allow-origin': PAGE,
      'access-control-allow-methods': 'POST,GET',
      'access-control-allow-headers': 'x-amz-meta-a',
      'access-control-max-age': '3600',
    });
  });

  it('refuses a preflight of an origin not listed, of a method not allowed, and every one without CORS', async () => {
    for (const refused of [
      await preflight(`${withCors.url}/submissions`, OTHER, 'POST'),
      await preflight(`${withCors.url}/submissions/key`, PAGE, 'DELETE'),
      await preflight(`${without.url}/submissions`, PAGE, 'POST'),
    ]) {
      expect(refused.status).toBe(403);
      expect(corsHeaders(refused)).toEqual({});
      expect(await refused.text()).toContain('<Code>AccessForbidden</Code>');
    }
  });

  it('adds the CORS headers to an answer for a listed origin, a refusal included', async () => {
    const answer = await s3Get(`${withCors.url}/submissions/key`, PAGE);
    expect(answer.status).toBe(403);
    expect(answer.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(answer.headers.get('access-control-expose-headers')).toBe('etag,location');
    expect(corsHeaders(await s3Get(`${withCors.url}/submissions/key`, OTHER))).toEqual({});
  });
});

/** A page served on `http://127.0.0.1:<port>`: a blank document its test runs scripts in. */
async function servePage(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>frontend</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('npm start with CORS_ORIGINS, from a browser page on another origin', () => {
  let dataDir: string;
  let started: StartedServer;
  let api: string;
  let listed: { server: Server; origin: string };
  let unlisted: { server: Server; origin: string };
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    requireChromium();
    [listed, unlisted] = await Promise.all([servePage(), servePage()]);
    dataDir = await mkdtemp(join(tmpdir(), 'course-api-cors-'));
    started = startServer(dataDir, { CORS_ORIGINS: `https://unused.example.edu, ${listed.origin}` });
    api = await started.url;
    browser = await chromium.launch({
      ...chromiumLaunch,
    });
    page = await browser.newPage();
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await killStartedServers();
    for (const served of [listed, unlisted]) served?.server.close();
    if (dataDir) {
      await rm(dataDir, { recursive: true, force: true });
      await rm(`${dataDir}-repositories`, { recursive: true, force: true });
    }
  });

  it('logs in, lists courses and submits files by multipart and by a presigned upload to the local S3 endpoint', async () => {
    await page.goto(listed.origin);
    expect(started.output()).toContain(`CORS (CORS_ORIGINS): pages on https://unused.example.edu, ${listed.origin}`);
    const result = await page.evaluate(async (api) => {
      // The page's own fetch, in the browser.
      const fetch = globalThis.fetch;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the answers, read freely and checked below
      const json = async (response: Response) => (await response.json()) as { status: string; data: any; message?: string };
      const login = await json(
        await fetch(`${api}/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ user_id: 'student', password: 'student' }),
        }),
      );
      const auth = { Authorization: login.data.token as string };
      const courses = await json(await fetch(`${api}/courses`, { headers: auth }));
      const files = `${api}/f26/sample/gradeable/open_homework/files`;

      const form = new FormData();
      form.append('files', new Blob(['An essay, sent in the request.\n']), 'essay.txt');
      const multipart = await json(
        await fetch(files, { method: 'POST', headers: { ...auth, 'Idempotency-Key': 'cors-multipart' }, body: form }),
      );

      const content = 'An essay, sent straight to storage.\n';
      const declared = await json(
        await fetch(`${files}/uploads`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ files: [{ name: 'long-essay.txt', size: content.length }] }),
        }),
      );
      const upload = declared.data.uploads[0] as { upload_id: string; url: string; fields: Record<string, string> };
      const post = new FormData();
      for (const [name, value] of Object.entries(upload.fields)) post.append(name, value);
      post.append('file', new Blob([content]), 'long-essay.txt');
      const stored = await fetch(upload.url, { method: 'POST', body: post });
      const confirmed = await json(
        await fetch(files, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ upload_ids: [upload.upload_id] }),
        }),
      );
      const attempts = await json(await fetch(`${api}/f26/sample/gradeable/open_homework/attempts`, { headers: auth }));
      return { login: login.status, courses, multipart, uploadUrl: upload.url, stored: stored.status, confirmed, attempts };
    }, api);
    expect(result.login).toBe('success');
    expect(result.courses.status).toBe('success');
    expect(JSON.stringify(result.courses.data)).toContain('"sample"');
    expect(result.multipart.status, JSON.stringify(result.multipart)).toBe('success');
    // The presigned form is posted to the local S3 endpoint: another origin again.
    expect(new URL(result.uploadUrl).origin).not.toBe(new URL(api).origin);
    expect(result.stored).toBeLessThan(300);
    expect(result.confirmed.status, JSON.stringify(result.confirmed)).toBe('success');
    expect(result.attempts.status).toBe('success');
    expect(JSON.stringify(result.attempts.data)).toMatch(/"version":2\b/);
  }, 60_000);

  it('is refused by the browser on a page of an origin not listed: the login and the upload form never reach its script', async () => {
    await page.goto(unlisted.origin);
    const outcome = await page.evaluate(async (api) => {
      const fetch = globalThis.fetch;
      const tried = async (request: () => Promise<Response>) => {
        try {
          await request();
          return 'answered';
        } catch (error) {
          return (error as Error).name;
        }
      };
      return {
        login: await tried(() =>
          fetch(`${api}/token`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ user_id: 'student', password: 'student' }),
          }),
        ),
        courses: await tried(() => fetch(`${api}/auth`)),
      };
    }, api);
    expect(outcome).toEqual({ login: 'TypeError', courses: 'TypeError' });
  }, 60_000);
});
