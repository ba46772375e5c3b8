import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CheckoutError } from '#shared/grading/checkout/checkout.ts';
import { resolveHead } from '#shared/grading/checkout/head.ts';
import { closeConnections, guardedHttp } from '#shared/grading/checkout/http.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';

/**
 * The head a submission binds its version to: read like `git ls-remote` through the checkout's own
 * client and address guard, within a time limit, and refused (CheckoutError, saying why) when the
 * repository cannot be read.
 */
const run = promisify(execFile);
let server: GitServer;
let silent: Server;
let folders: string;
beforeAll(async () => {
  server = await startGitServer({ code: { 'hello.sh': 'echo one\n' }, empty: {} });
  // Accepts connections and never answers.
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  folders = await mkdtemp(join(tmpdir(), 'head-'));
});
afterAll(async () => {
  closeConnections();
  await server?.close();
  silent?.closeAllConnections();
  await new Promise((resolve) => silent?.close(resolve));
  await rm(folders, { recursive: true, force: true });
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const headOf = (url: string, options: { allowedHosts?: string[]; timeLimitMs?: number } = {}) =>
  resolveHead(url, { allowedHosts: options.allowedHosts ?? [server.host], ...options });
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof CheckoutError ? error.message : error),
  );

describe("a repository's head at submission", () => {
  it("is the default branch's head, and follows a push", async () => {
    const url = server.repositoryUrl('code');
    expect(await headOf(url)).toBe(await server.head('code'));
    const pushed = await server.push('code', { 'hello.sh': 'echo two\n' });
    expect(await headOf(url)).toBe(pushed);
  });

  it('is refused, saying why, when the repository cannot be read', async () => {
    // A port nothing listens on any more.
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const closed = `127.0.0.1:${(gone.address() as AddressInfo).port}`;
    await new Promise((resolve) => gone.close(resolve));
    expect(await refusal(headOf(`${server.url}/nothing-here.git`))).toBe('no repository was found at that address (HTTP 404)');
    expect(await refusal(headOf(server.repositoryUrl('empty')))).toBe('the repository is empty (it has no commits on its default branch)');
    expect(await refusal(headOf(server.repositoryUrl('code'), { allowedHosts: [] }))).toBe(
      'the address 127.0.0.1 is a loopback address; repositories cannot be fetched from such addresses',
    );
    expect(await refusal(headOf(`${server.url}/to-metadata/code.git`))).toBe(
      'the address 169.254.169.254 is a link-local address; repositories cannot be fetched from such addresses',
    );
    expect(await refusal(headOf(`http://${closed}/code.git`, { allowedHosts: [closed] }))).toBe(
      'the server could not be reached (ECONNREFUSED)',
    );
    expect(await refusal(headOf('ftp://example.edu/code.git'))).toBe('only http and https repository addresses are supported, not ftp:');
  });

  it('gives up after its time limit on a server that never answers', async () => {
    const host = `127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const started = Date.now();
    expect(await refusal(headOf(`http://${host}/code.git`, { allowedHosts: [host], timeLimitMs: 300 }))).toBe(
      'reading the repository took too long',
    );
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('reads a local git repository (local demo only), and none for a folder without history', async () => {
    const repository = join(folders, 'repository');
    const plain = join(folders, 'plain');
    await mkdir(repository);
    await mkdir(plain);
    await writeFile(join(repository, 'hello.sh'), 'echo local\n');
    const git = (...args: string[]) =>
      run('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.edu', '-c', 'init.defaultBranch=main', ...args], { cwd: repository });
    await git('init', '-q');
    await git('add', '-A');
    await git('commit', '-q', '-m', 'Local');
    const head = (await git('rev-parse', 'HEAD')).stdout.trim();
    expect(await refusal(headOf(`file://${repository}`))).toBe('file:// repository addresses are not allowed on this server');
    vi.stubEnv('FILE_REPOSITORIES_DIR', folders);
    expect(await headOf(`file://${repository}`)).toBe(head);
    expect(await headOf(`file://${plain}`)).toBeUndefined();
    expect(await refusal(headOf(`file://${join(folders, 'missing')}`))).toBe(`${join(folders, 'missing')} is not a folder`);
  });
});

describe('connections to a git server', () => {
  const read = async (http: ReturnType<typeof guardedHttp>, url: string) => {
    const response = await http.request({ url });
    let text = '';
    for await (const chunk of response.body!) text += Buffer.from(chunk).toString();
    return { status: response.statusCode, text };
  };

  it('are kept open between reads of the same checked address', async () => {
    const url = server.repositoryUrl('code');
    const head = await server.head('code');
    await headOf(url);
    const before = server.connections();
    for (let read = 0; read < 5; read += 1) expect(await headOf(url)).toBe(head);
    // Each read asks twice (the refs advertisement, then the head); a new connection each would be 10.
    expect(server.connections() - before).toBeLessThanOrEqual(1);
  });

  it('are never reused for a host that now resolves to another address', async () => {
    const port = server.host.split(':')[1];
    const url = `http://git.invalid:${port}/code.git/info/refs?service=git-upload-pack`;
    let address = '127.0.0.1';
    const http = guardedHttp({
      allowedHosts: [`git.invalid:${port}`],
      maxBytes: 1024 * 1024,
      resolve: async () => [{ address, family: 4 }],
    });
    expect((await read(http, url)).status).toBe(200);
    // Nothing listens on 127.0.0.2: only a connection kept for 127.0.0.1 could answer.
    address = '127.0.0.2';
    await expect(http.request({ url })).rejects.toThrow(/ECONNREFUSED/);
    address = '127.0.0.1';
    expect((await read(http, url)).status).toBe(200);
  });

  it('are kept for a bounded number of addresses, the least recently used dropped first', async () => {
    const port = server.host.split(':')[1];
    const hosts = Array.from({ length: 17 }, (_, index) => `git${index}.invalid:${port}`);
    const http = guardedHttp({ allowedHosts: hosts, maxBytes: 1024 * 1024, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    const refs = (host: string) => read(http, `http://${host}/code.git/info/refs?service=git-upload-pack`);
    for (const host of hosts) await refs(host);
    const before = server.connections();
    await refs(hosts[16]!); // kept
    expect(server.connections()).toBe(before);
    await refs(hosts[0]!); // the 17th address dropped the first one's connection
    expect(server.connections()).toBe(before + 1);
  });

  it('are opened again when the server closed a kept one meanwhile', async () => {
    // Answers once per connection, then drops the connection when a second request arrives on it.
    let connections = 0;
    const dropping = createServer((request, response) => {
      const socket = request.socket as typeof request.socket & { answered?: boolean };
      if (socket.answered) {
        socket.destroy();
        return;
      }
      socket.answered = true;
      response.end('answer');
    });
    dropping.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(dropping.address() as AddressInfo).port}`;
    try {
      const http = guardedHttp({ allowedHosts: [host], maxBytes: 1024 });
      for (let attempt = 0; attempt < 3; attempt += 1)
        expect(await read(http, `http://${host}/code.git/info/refs`)).toEqual({ status: 200, text: 'answer' });
      expect(connections).toBe(3);
    } finally {
      dropping.closeAllConnections();
      await new Promise((resolve) => dropping.close(resolve));
    }
  });
});
