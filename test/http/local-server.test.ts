import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { JAVA_MISSING, startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';
import { sandboxNotice } from '#infra/local/sandbox-notice.ts';
import { contracts } from '#functions/contracts.ts';
import { checkedFetch, startTestApi } from '../support/http.ts';
import { createUser } from '../support/users.ts';
import { selfHostedGradeableJson } from '../support/gradeables.ts';

/** Starts `npm start`'s entry point and resolves with its API URL once it is listening. */
function startServer(dataDir: string, settings: Record<string, string> = {}) {
  // The test run's own DynamoDB Local and tables are not the server's business.
  const { DYNAMODB_ENDPOINT, SIGNING_SECRET_FILE, RECORD_KEYS_FILE, TABLE_PREFIX, ...environment } = process.env;
  const child = spawn(process.execPath, ['infra/local/start.ts'], {
    env: { ...environment, DATA_DIR: dataDir, PORT: '0', ...settings },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /API on (\S+)/.exec(output);
      if (match && output.includes('Try:')) resolve(match[1]!);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', () => reject(new Error(`the server exited:\n${output}`)));
  });
  const stop = () =>
    new Promise<number | null>((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
  return { url, stop, output: () => output };
}

const dynamoDbProcesses = (dataDir: string) => {
  try {
    return execFileSync('pgrep', ['-f', `DynamoDBLocal.jar.*${dataDir}`])
      .toString()
      .trim()
      .split('\n').length;
  } catch {
    return 0;
  }
};

async function login(url: string, userId: string) {
  const response = await checkedFetch(`${url}/token`, { method: 'POST', body: new URLSearchParams({ user_id: userId, password: userId }) });
  return ((await response.json()) as { data: { token: string } }).data.token;
}

/**
 * One request to `url`'s server with the `Host` header given (fetch sets its own): the status and
 * the envelope. A web page that rebinds its own name to 127.0.0.1 reaches the server this way,
 * with its own name in `Host`.
 */
function callAs(host: string, url: string, path: string, body?: URLSearchParams, headers: Record<string, string> = {}) {
  const target = new URL(`${url}${path}`);
  return new Promise<{ status: number; json: { status: string; data?: { token?: string; user_id?: string }; message?: string } }>(
    (resolve, reject) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port: target.port,
          path: target.pathname,
          method: body ? 'POST' : 'GET',
          headers: {
            ...headers,
            Host: host,
            Prefer: 'http-status',
            ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
          },
        },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
          incoming.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body?.toString());
    },
  );
}

describe('the local server’s host names', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('answers only to localhost and the loopback addresses with its own port, and to the names LOCAL_API_HOSTS adds', async () => {
    vi.stubEnv('LOCAL_API_HOSTS', 'api.example.edu, dev.example.edu:8443');
    const api = await startTestApi({ workers: 0 });
    try {
      const user = await createUser();
      const port = new URL(api.url).port;
      const login = (host: string) =>
        callAs(host, api.url, '/token', new URLSearchParams({ user_id: user.userId, password: user.password }));
      for (const host of [
        `localhost:${port}`,
        `127.0.0.1:${port}`,
        `127.1.2.3:${port}`,
        `[::1]:${port}`,
        `LOCALHOST:${port}`,
        'api.example.edu',
        `api.example.edu:${port}`,
        'dev.example.edu:8443',
      ]) {
        const answer = await login(host);
        expect({ host, status: answer.status, envelope: answer.json.status }).toEqual({ host, status: 200, envelope: 'success' });
      }
      // A page of evil.example whose name now resolves to 127.0.0.1 sends its own name.
      for (const host of [
        `evil.example:${port}`,
        'evil.example',
        `localhost:${Number(port) + 1}`,
        'localhost',
        `localhost.evil.example:${port}`,
        `api.example.edu.evil.example`,
        'dev.example.edu:8444',
        `user@localhost:${port}`,
        `localhost:${port}/x`,
      ]) {
        const answer = await login(host);
        expect({ host, status: answer.status, json: answer.json }).toEqual({
          host,
          status: 421,
          json: {
            status: 'fail',
            message: `This server does not answer to the host name ${JSON.stringify(host)}: call it as localhost, 127.0.0.1 or [::1] with port ${port}, or add the name to LOCAL_API_HOSTS.`,
          },
        });
      }
      // Refused before any function runs, a valid token or not.
      const token = (await login(`localhost:${port}`)).json.data!.token!;
      const me = (host: string) => callAs(host, api.url, '/me', undefined, { Authorization: token });
      expect(await me(`localhost:${port}`)).toMatchObject({ status: 200, json: { status: 'success', data: { user_id: user.userId } } });
      expect(await me(`evil.example:${port}`)).toMatchObject({ status: 421, json: { status: 'fail' } });
    } finally {
      await api.close();
    }
  });
});

describe('HEAD on a GET route', () => {
  it('answers as the GET would, headers and status, without a body; a path without GET still answers 405', async () => {
    const api = await startTestApi({ workers: 0 });
    try {
      const user = await createUser();
      const token = (await api.postJson('/token', { user_id: user.userId, password: user.password })).json.data.token as string;
      for (const [path, headers] of [
        ['/me', { Authorization: token }],
        ['/me', {}],
        ['/me', { Authorization: token, Prefer: 'http-status' }],
        ['/me', { Prefer: 'http-status' }],
        ['/openapi.json', {}],
        ['/courses', { Authorization: token }],
        ['/token', { Authorization: token, Prefer: 'http-status' }],
        ['/token', { Prefer: 'http-status' }],
      ] as const) {
        const get = await api.call('GET', path, { headers });
        const head = await api.call('HEAD', path, { headers });
        expect({ path, headers, status: head.httpStatus, text: head.text }).toEqual({ path, headers, status: get.httpStatus, text: '' });
        expect(head.headers.get('content-type'), path).toBe(get.headers.get('content-type'));
        expect(get.text, path).not.toBe('');
      }
      const postOnly = await api.call('HEAD', '/token/invalidate', { headers: { Prefer: 'http-status' } });
      expect({ status: postOnly.httpStatus, allow: postOnly.headers.get('allow') }).toEqual({ status: 405, allow: 'POST' });
    } finally {
      await api.close();
    }
  });
});

describe('npm start', () => {
  it('seeds an empty data folder, keeps data across restarts and stops DynamoDB Local with it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'course-api-start-'));
    try {
      const first = startServer(dataDir);
      const url = await first.url;
      expect(first.output()).toContain('demo dataset seeded');
      expect(first.output()).toMatch(/admin \(superuser\), instructor \(faculty\), ta \(user\), mentor \(user\), student \(user\)/);
      const token = await login(url, 'instructor');
      // A web page that rebinds its own name to this machine gets nothing.
      const rebound = await callAs(
        `rebound.example:${new URL(url).port}`,
        url,
        '/token',
        new URLSearchParams({ user_id: 'admin', password: 'admin' }),
      );
      expect(rebound).toMatchObject({ status: 421, json: { status: 'fail' } });
      expect(await first.stop()).toBe(0);
      expect(dynamoDbProcesses(dataDir)).toBe(0);

      const second = startServer(dataDir);
      const secondUrl = await second.url;
      expect(second.output()).not.toContain('seeded');
      const me = await checkedFetch(`${secondUrl}/me`, { headers: { Authorization: token } });
      expect(await me.json()).toEqual({
        status: 'success',
        data: { user_id: 'instructor', user_given_name: 'Ines', user_family_name: 'Instructor' },
      });
      expect(await second.stop()).toBe(0);
      expect(dynamoDbProcesses(dataDir)).toBe(0);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
      await rm(`${dataDir}-repositories`, { recursive: true, force: true });
    }
  }, 120_000);

  it('grades the demo from its repositories folder, and no file:// gradeable reaches the data folder', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'course-api-files-'));
    const repositories = `${dataDir}-repositories`;
    const server = startServer(dataDir);
    try {
      const url = await server.url;
      const as = async (userId: string) => ({ Authorization: await login(url, userId), 'Content-Type': 'application/json' });
      const [instructor, student] = [await as('instructor'), await as('student')];
      const secret = (await readFile(join(dataDir, 'signing-secret'), 'utf8')).trim();
      // An instructor's gradeable whose repository is the data folder (by its path, or by a link
      // in the repositories folder), with a test case printing the signing secret.
      await mkdir(repositories, { recursive: true });
      await symlink(dataDir, join(repositories, 'data'));
      const paths = { leak_path: `file://${dataDir}/{$user_id}/..`, leak_link: `file://${repositories}/data/{$user_id}/..` };
      for (const [id, vcsPath] of Object.entries(paths)) {
        const document = selfHostedGradeableJson(id, vcsPath, {
          autograding: {
            test_cases: [{ name: 'Leak', command: 'cat signing-secret; ls -la', points_available: 1, expect: { stdout: 'x' } }],
          },
        });
        const uploaded = await checkedFetch(`${url}/f26/sample/upload`, {
          method: 'POST',
          headers: instructor,
          body: JSON.stringify(document),
        });
        expect(((await uploaded.json()) as { status: string }).status).toBe('success');
      }
      const graded = async (id: string) => {
        const body = JSON.stringify({ vcs_checkout: true, git_repo_id: 'none' });
        const submitted = await checkedFetch(`${url}/f26/sample/gradeable/${id}/upload`, { method: 'POST', headers: student, body });
        expect(((await submitted.json()) as { status: string }).status).toBe('success');
        for (let tries = 0; tries < 240; tries++) {
          const text = await (await checkedFetch(`${url}/f26/sample/gradeable/${id}/values`, { headers: student })).text();
          if ((JSON.parse(text) as { data: { autograding_complete: boolean } }).data.autograding_complete) return text;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        throw new Error(`${id} was not graded:\n${server.output()}`);
      };
      // The demo's own git homework still grades, from the repositories folder.
      expect(JSON.parse(await graded('hw_vcs')).data).toMatchObject({ total_points: 6 });
      // Refused when submitted (its head cannot be read), so nothing of the data folder is ever graded.
      for (const id of Object.keys(paths)) {
        const body = JSON.stringify({ vcs_checkout: true, git_repo_id: 'none' });
        const text = await (
          await checkedFetch(`${url}/f26/sample/gradeable/${id}/upload`, { method: 'POST', headers: student, body })
        ).text();
        expect(text).not.toContain(secret);
        expect(text).not.toContain('shared-local-instance.db');
        const answer = JSON.parse(text) as { status: string; message: string };
        expect(answer.status, text).toBe('fail');
        expect(answer.message).toMatch(/is outside this server's repositories folder\. Nothing was submitted/);
      }
    } finally {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
      await rm(repositories, { recursive: true, force: true });
    }
  }, 180_000);

  it('refuses to start with its repositories folder in, or around, the data folder', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'course-api-overlap-'));
    try {
      for (const folder of [dataDir, join(dataDir, 'repositories'), dirname(dataDir)]) {
        const server = startServer(dataDir, { FILE_REPOSITORIES_DIR: folder });
        await expect(server.url).rejects.toThrow(
          `Could not start the local API: FILE_REPOSITORIES_DIR (${folder}) must lie outside the data folder (${dataDir}) and must not hold it`,
        );
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('says at start-up when no submission can be graded for want of a sandbox, and how to fix it', async () => {
    expect(await sandboxNotice('/nonexistent/bwrap')).toBe(
      'Submissions cannot be graded here: no sandbox can be made (bubblewrap (bwrap) is not installed), so every job fails until one can. ' +
        'Install bubblewrap 0.8 or newer (sudo apt-get install -y bubblewrap), with unprivileged user namespaces allowed; see docs/sandbox.md.',
    );
    // This machine grades (as the sandbox tests need): nothing to say.
    expect(await sandboxNotice()).toBeUndefined();
  });

  it('explains how to install Java when it is missing', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      await expect(startDynamoDbLocal()).rejects.toThrow(JAVA_MISSING);
    } finally {
      process.env.PATH = path;
    }
  });
});

describe('CHECK_ANSWERS', () => {
  // The local functions run in this process, so a contract changed here is the one the server checks with.
  const me = contracts.me;
  afterEach(() => {
    contracts.me = me;
    vi.restoreAllMocks();
  });

  it('logs an answer its contract does not allow and names the mismatch in Answer-Mismatch, leaving the body as sent', async () => {
    const warnings: string[] = [];
    vi.spyOn(console, 'warn').mockImplementation((message: string) => void warnings.push(message));
    for (const checkAnswers of [true, false]) {
      const api = await startTestApi({ checkAnswers });
      try {
        const user = await createUser();
        const token = (await api.postJson('/token', { user_id: user.userId, password: user.password })).json.data.token as string;
        contracts.me = { ...me, data: z.strictObject({ user_id: z.number(), user_given_name: z.string(), user_family_name: z.string() }) };
        // A bare fetch: the test client would refuse the answer itself.
        // eslint-disable-next-line no-restricted-globals -- what the server sends, unchecked by the client
        const answer = await fetch(`${api.url}/me`, { headers: { Authorization: token } });
        expect(await answer.json()).toEqual({
          status: 'success',
          data: { user_id: user.userId, user_given_name: expect.any(String), user_family_name: expect.any(String) },
        });
        // The test client refuses it, naming the route and the path into the answer.
        await expect(api.get('/me', { Authorization: token })).rejects.toThrow(
          /GET \/api\/me \(me\) is not one its contract allows:\n {2}data\.user_id: Invalid input: expected number, received string/,
        );
        if (checkAnswers) {
          const mismatch = JSON.parse(answer.headers.get('answer-mismatch') ?? '{}');
          expect(mismatch).toEqual({
            route: 'GET /api/me (me)',
            problems: [`data.user_id: Invalid input: expected number, received string (found ${JSON.stringify(user.userId)})`],
          });
          expect(warnings.join('\n')).toContain(`data.user_id: Invalid input: expected number, received string`);
        } else {
          expect(answer.headers.has('answer-mismatch')).toBe(false);
        }
      } finally {
        contracts.me = me;
        await api.close();
      }
    }
  });
});
