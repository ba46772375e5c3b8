import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkoutOrFailure, checkoutRepository, isCommitId, UnreachableCommitError } from '#shared/grading/checkout/checkout.ts';
import { runIsolated } from '#shared/grading/runner/in-process.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { request, testCase } from './fixtures.ts';

/**
 * A version is graded on its own commit: the checkout reports the commit it
 * resolved, checks out exactly a commit asked for even after newer pushes, and refuses one that
 * is no longer reachable (force-push) instead of checking out anything newer.
 */
const run = promisify(execFile);
let server: GitServer;
beforeAll(async () => {
  server = await startGitServer({ code: { 'hello.sh': 'echo one\n' }, other: { 'hello.sh': 'echo other\n' } });
});
afterAll(() => server?.close());
afterEach(() => {
  delete process.env.FILE_REPOSITORIES_DIR;
});

const checkout = async (url: string, commit?: string) => {
  const done = await checkoutRepository({ ...request(url, []), allowedHosts: [server.host], ...(commit ? { commit } : {}) });
  try {
    return { commit: done.commit, hello: await readFile(join(done.submission, 'hello.sh'), 'utf8') };
  } finally {
    await done.remove();
  }
};

describe('the commit of a checkout', () => {
  it('is the head of the default branch when none is asked for, and exactly the one asked for after newer pushes', async () => {
    const url = server.repositoryUrl('code');
    const first = await server.head('code');
    expect(isCommitId(first)).toBe(true);
    expect(await checkout(url)).toEqual({ commit: first, hello: 'echo one\n' });
    const second = await server.push('code', { 'hello.sh': 'echo two\n' });
    expect(await checkout(url)).toEqual({ commit: second, hello: 'echo two\n' });
    expect(await checkout(url, first)).toEqual({ commit: first, hello: 'echo one\n' });
    expect(await checkout(url, second)).toEqual({ commit: second, hello: 'echo two\n' });
  });

  it('refuses a commit no longer reachable (history replaced by a force-push) and never checks out the newer head instead', async () => {
    const url = server.repositoryUrl('other');
    const old = await server.head('other');
    await server.push('other', { 'hello.sh': 'echo rewritten\n' }, { replaceHistory: true });
    const error = await checkout(url, old).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(UnreachableCommitError);
    const failure = await checkoutOrFailure({ ...request(url, []), allowedHosts: [server.host], commit: old }, undefined, '/tmp');
    expect(failure).toEqual({
      status: 'commit-unreachable',
      message:
        `Could not check out the repository: commit ${old}, which this version was first graded on, is no longer in the repository ` +
        '(was its branch force-pushed or deleted?). This version cannot be graded again; submitting again grades the repository as it is now.',
    });
    // A commit that never existed reads the same.
    expect(await checkout(url, 'f'.repeat(40)).catch((failure: unknown) => failure)).toBeInstanceOf(UnreachableCommitError);
  });

  it('takes only full commit ids from the worker', async () => {
    await expect(checkout(server.repositoryUrl('code'), 'main')).rejects.toThrow('Not a commit id: "main"');
    expect(isCommitId('A'.repeat(40))).toBe(false);
    expect(isCommitId('a'.repeat(39))).toBe(false);
  });
});

describe('the runner process', () => {
  it('reports the commit before anything runs and with the result; a failure to record it stops the run', async () => {
    const url = server.repositoryUrl('code');
    const head = await server.head('code');
    const seen: string[] = [];
    const run = {
      ...request(url, [testCase({ command: 'sh hello.sh', expect: { stdout: 'two\n' } })]),
      allowedHosts: [server.host],
    };
    const result = await runIsolated(run, { onCheckout: async (commit) => void seen.push(commit) });
    expect(result).toMatchObject({ status: 'graded', commit: head, testCases: [{ passed: true }] });
    expect(seen).toEqual([head]);
    const started = Date.now();
    const slow = { ...run, testCases: request(url, [testCase({ command: 'sleep 20', timeout_seconds: 30 })]).testCases };
    await expect(
      runIsolated(slow, {
        onCheckout: async () => {
          throw new Error('Job 1 lost its lease before its commit was recorded');
        },
      }),
    ).rejects.toThrow('Job 1 lost its lease before its commit was recorded');
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 60_000);
});

describe('file:// repositories (local demo)', () => {
  it('give the committed files of HEAD or of the commit asked for, and refuse an unreachable one', async () => {
    const tree = server.workingTree('code');
    process.env.FILE_REPOSITORIES_DIR = dirname(tree);
    const url = `file://${tree}`;
    const head = (await run('git', ['rev-parse', 'HEAD'], { cwd: tree })).stdout.trim();
    const first = (await run('git', ['rev-list', '--max-parents=0', 'HEAD'], { cwd: tree })).stdout.trim();
    expect(await checkout(url)).toEqual({ commit: head, hello: 'echo two\n' });
    expect(await checkout(url, first)).toEqual({ commit: first, hello: 'echo one\n' });
    const gone = await server.head('other');
    expect(await checkout(url, gone).catch((failure: unknown) => failure)).toBeInstanceOf(UnreachableCommitError);
  });

  it('copy a folder without history as it is, with no commit; a commit asked of it is unreachable', async () => {
    const folder = join(server.workingTree('code'), '..');
    process.env.FILE_REPOSITORIES_DIR = folder;
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const plain = await mkdtemp(join(folder, 'plain-'));
    try {
      await writeFile(join(plain, 'hello.sh'), 'echo plain\n');
      expect(await checkout(`file://${plain}`)).toEqual({ commit: undefined, hello: 'echo plain\n' });
      expect(await checkout(`file://${plain}`, 'a'.repeat(40)).catch((failure: unknown) => failure)).toBeInstanceOf(UnreachableCommitError);
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
  });
});
