import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHECKOUT_MEMORY_LIMIT_BYTES, checkoutOrFailure, checkoutRepository, CheckoutError } from '#shared/grading/checkout/checkout.ts';
import { PackMeter } from '#shared/grading/checkout/pack.ts';
import { CHECKOUT_CHILD_SOURCE } from '#shared/grading/checkout/process.ts';
import { defaultRunLimits } from '#shared/grading/runner-protocol.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { request } from './fixtures.ts';

/**
 * A checkout cannot exhaust the worker: the fetching runs in a process of its own, without the
 * worker's credentials, that stops as soon as the pack's objects inflate past the repository's
 * limit, and is killed at its memory or time limit; whatever stops it, nothing is left behind.
 */
const run = promisify(execFile);
const MiB = 1024 * 1024;
let server: GitServer;
let parent: string;
beforeAll(async () => {
  // A gigabyte of zeros compresses to about a megabyte: a tiny push.
  server = await startGitServer({
    huge: { 'hello.sh': 'echo hello\n', 'big.bin': { zeros: 1024 ** 3 } },
    small: { 'hello.sh': 'echo hi\n' },
  });
}, 180_000);
afterAll(() => server?.close());
beforeEach(async () => {
  parent = await mkdtemp(join(tmpdir(), 'checkout-limits-'));
});
afterEach(async () => {
  await rm(parent, { recursive: true, force: true });
});

/** This process's checkout processes (checkout/child.ts, bundled or not) still alive. */
async function checkoutProcesses(): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const parentPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parentPid !== process.pid) continue;
    const commandLine = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    // Started from its source here, from its bundle (checkout-child.mjs) in a function's asset.
    if (commandLine.includes(CHECKOUT_CHILD_SOURCE) || commandLine.includes('checkout-child')) found.push(Number(name));
  }
  return found;
}

const residentBytes = async (pid: number) =>
  Number(/^VmRSS:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/status`, 'utf8').catch(() => ''))?.[1] ?? 0) * 1024;

/**
 * A proxy to the git server that passes everything but the end of each pack: the first
 * `sentShare` of it goes out at once, the rest once `release()` is called.
 */
async function stallingProxy(sentShare: number) {
  const { promise: released, resolve: release } = Promise.withResolvers<undefined>();
  const proxy: Server = createServer((incoming, outgoing) => {
    const upstream = httpRequest(`${server.url}${incoming.url}`, { method: incoming.method, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      if (!incoming.url?.endsWith('/git-upload-pack')) return void answer.pipe(outgoing);
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        const sent = Math.floor(body.length * sentShare);
        outgoing.write(body.subarray(0, sent));
        void released.then(() => outgoing.end(body.subarray(sent)));
      });
    });
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  return {
    host,
    url: (name: string) => `http://${host}/${name}.git`,
    release,
    close: () => {
      release(undefined);
      proxy.closeAllConnections();
      return new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

describe('a tiny push of a huge blob', () => {
  it('is refused with the size message while the worker’s memory stays bounded, and leaves nothing behind', async () => {
    const run = { ...request(server.repositoryUrl('huge'), []), limits: defaultRunLimits, allowedHosts: [server.host] };
    const baseline = process.memoryUsage().rss;
    let parentPeak = baseline;
    let childPeak = 0;
    let looking = false;
    const watch = setInterval(() => {
      parentPeak = Math.max(parentPeak, process.memoryUsage().rss);
      if (looking) return;
      looking = true;
      void checkoutProcesses()
        .then(async (pids) => {
          for (const pid of pids) childPeak = Math.max(childPeak, await residentBytes(pid));
        })
        .finally(() => {
          looking = false;
        });
    }, 20);
    try {
      expect(await checkoutOrFailure(run, undefined, parent)).toEqual({
        status: 'checkout-failed',
        message: 'Could not check out the repository: the repository is larger than the limit of 50 MB',
      });
    } finally {
      clearInterval(watch);
    }
    // isomorphic-git alone took this process past 4 GB here: the worker itself now holds nothing of the pack.
    expect(parentPeak - baseline).toBeLessThan(200 * MiB);
    expect(childPeak).toBeLessThan(CHECKOUT_MEMORY_LIMIT_BYTES);
    expect(await readdir(parent)).toEqual([]);
    expect(await checkoutProcesses()).toEqual([]);
  }, 120_000);
});

describe('the checkout process', () => {
  const AWS = { AWS_ACCESS_KEY_ID: 'AKIAWORKERROLE', AWS_SECRET_ACCESS_KEY: 'worker-secret', AWS_SESSION_TOKEN: 'worker-session' };
  afterEach(() => {
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    delete process.env.AWS_SESSION_TOKEN;
  });

  it('holds none of the worker’s environment, AWS credentials included', async () => {
    Object.assign(process.env, AWS);
    const proxy = await stallingProxy(0);
    try {
      const checkout = checkoutRepository({ ...request(proxy.url('small'), []), allowedHosts: [proxy.host] }, undefined, parent);
      checkout.catch(() => undefined);
      let pids: number[] = [];
      for (let look = 0; look < 200 && pids.length === 0; look += 1) {
        pids = await checkoutProcesses();
        if (pids.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(pids, 'no checkout process was found while the server held its pack').toHaveLength(1);
      const environ = await readFile(`/proc/${pids[0]}/environ`, 'utf8');
      const names = environ
        .split('\0')
        .filter(Boolean)
        .map((entry) => entry.slice(0, entry.indexOf('=')));
      expect(names.sort()).toEqual(['LANG', 'PATH']);
      expect(environ).not.toContain('worker-secret');
      proxy.release(undefined);
      const done = await checkout;
      expect(await readFile(join(done.submission, 'hello.sh'), 'utf8')).toBe('echo hi\n');
      await done.remove();
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('killed at its time limit leaves no folder and no process, even when the server answers afterwards', async () => {
    const proxy = await stallingProxy(0.5);
    try {
      const run = { ...request(proxy.url('small'), []), allowedHosts: [proxy.host] };
      const error = await checkoutRepository(run, undefined, parent, { timeMs: 2_000, memoryBytes: CHECKOUT_MEMORY_LIMIT_BYTES }).catch(
        (failure: unknown) => failure,
      );
      expect(error).toEqual(new CheckoutError('fetching the repository took too long'));
      expect(await readdir(parent)).toEqual([]);
      expect(await checkoutProcesses()).toEqual([]);
      // The rest of the pack arrives late: nobody is left to write it anywhere.
      proxy.release(undefined);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await readdir(parent)).toEqual([]);
    } finally {
      await proxy.close();
    }
  }, 120_000);

  it('killed at its memory limit fails with a message and leaves nothing behind', async () => {
    const run = { ...request(server.repositoryUrl('small'), []), allowedHosts: [server.host] };
    // Node alone takes more than 20 MB.
    expect(await checkoutOrFailure(run, undefined, parent, { timeMs: 30_000, memoryBytes: 20 * MiB })).toEqual({
      status: 'checkout-failed',
      message: 'Could not check out the repository: checking the repository out took more memory than the limit of 20 MB',
    });
    expect(await readdir(parent)).toEqual([]);
    expect(await checkoutProcesses()).toEqual([]);
  }, 60_000);
});

describe('the pack meter on a pack made by git', () => {
  it('counts each object, deltas as what they make', async () => {
    const git = (...args: string[]) =>
      run('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.edu', ...args], { cwd: parent, maxBuffer: 64 * MiB });
    await git('init', '-q');
    const text = Array.from({ length: 4000 }, (_, line) => `line ${line} of a file that changes little\n`).join('');
    await writeFile(join(parent, 'a.txt'), text);
    await writeFile(join(parent, 'b.txt'), `${text}one more line\n`);
    await git('add', '-A');
    await git('commit', '-q', '-m', 'one');
    const objects = (await git('rev-list', '--objects', '--all')).stdout
      .split('\n')
      .filter(Boolean)
      .map((entry) => `${entry.split(' ')[0]}\n`)
      .join('');
    const sizes = await new Promise<string>((resolve, reject) => {
      const child = execFile('git', ['cat-file', '--batch-check=%(objectsize)'], { cwd: parent }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      );
      child.stdin?.end(objects);
    });
    const inflated = sizes
      .trim()
      .split('\n')
      .reduce((sum, size) => sum + Number(size), 0);
    const packBytes = await new Promise<Buffer>((resolve, reject) => {
      const child = execFile(
        'git',
        ['pack-objects', '--stdout', '--delta-base-offset'],
        { cwd: parent, encoding: 'buffer', maxBuffer: 64 * MiB },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
      child.stdin?.end(objects);
    });
    // b.txt went into the pack as a delta of a.txt: the pack is far smaller than a single copy.
    expect(packBytes.length).toBeLessThan(text.length / 4);
    const meter = new PackMeter(10 * MiB);
    const line = (payload: Buffer) => Buffer.concat([Buffer.from((payload.length + 4).toString(16).padStart(4, '0')), payload]);
    await meter.write(line(Buffer.from('NAK\n')));
    for (let at = 0; at < packBytes.length; at += 999)
      await meter.write(line(Buffer.concat([Buffer.from([1]), packBytes.subarray(at, at + 999)])));
    expect(meter.total).toBe(inflated);
    const refusing = new PackMeter(inflated - 1);
    await expect(refusing.write(line(Buffer.concat([Buffer.from([1]), packBytes])))).rejects.toThrow(CheckoutError);
  });
});
