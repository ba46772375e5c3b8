import { execFile } from 'node:child_process';
import { chmod, chown, copyFile, link, mkdir, mkdtemp, readdir, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyOfNode } from '#shared/grading/runner/readable-node.ts';

/**
 * Root running the project from a folder only root may enter (a clone in /root, or in a
 * `mktemp -d`): the grading sandbox's job uids and the deployed-artifact test's functions (nobody)
 * cannot reach the clone's Node, so they must be given one they may read, without the folder being
 * opened to them. The clone here holds the project's files and its own Node binary; the other
 * packages are links (only root reads them).
 */
const run = promisify(execFile);
const project = fileURLToPath(new URL('../../', import.meta.url));
const isRoot = process.getuid?.() === 0;
let base: string;

/** `<base>/clone`: the project's files (tracked and new), `node_modules/node` its own, the other packages linked. */
async function privateClone(): Promise<string> {
  const clone = join(base, 'clone');
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: project,
    maxBuffer: 1 << 24,
  });
  for (const file of stdout.split('\0').filter(Boolean)) {
    await mkdir(dirname(join(clone, file)), { recursive: true });
    await copyFile(join(project, file), join(clone, file)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error; // deleted, not yet committed
    });
  }
  const modules = await realpath(join(project, 'node_modules'));
  await mkdir(join(clone, 'node_modules', 'node', 'bin'), { recursive: true });
  for (const entry of await readdir(modules)) if (entry !== 'node') await symlink(join(modules, entry), join(clone, 'node_modules', entry));
  await copyFile(join(modules, 'node', 'package.json'), join(clone, 'node_modules', 'node', 'package.json'));
  // The binary itself only by this private path: a hard link where it can be (no 120 MB copy).
  const node = join(clone, 'node_modules', 'node', 'bin', 'node');
  await link(process.execPath, node).catch(() => copyFile(process.execPath, node));
  return clone;
}

beforeAll(async () => {
  if (!isRoot) return;
  base = await mkdtemp(join(tmpdir(), 'private-clone-'));
  await chmod(base, 0o700);
}, 60_000);
afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

describe('a clone in a folder only root may enter', () => {
  it.skipIf(!isRoot)(
    'grades in the sandbox and runs the deployed functions, the folder staying closed (skipped unless root)',
    async () => {
      const clone = await privateClone();
      const repositories = join(base, 'repositories');
      await mkdir(join(repositories, 'hw'), { recursive: true });
      await writeFile(join(repositories, 'hw', 'hello.sh'), 'echo "Hello, World!"\n');
      const asset = join(base, 'asset');
      await mkdir(asset);
      await writeFile(
        join(asset, 'index.mjs'),
        'export const handler = async (event) => ({ greeting: `Hello, ${event.name}!`, uid: process.getuid() });\n',
      );
      const node = join(clone, 'node_modules', 'node', 'bin', 'node');
      const { stdout } = await run(node, [join(clone, 'test', 'grading', 'private-clone-run.ts'), repositories, asset], {
        cwd: clone,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          LANG: 'C.UTF-8',
          POWERTOOLS_LOG_LEVEL: 'ERROR',
          POWERTOOLS_METRICS_DISABLED: 'true',
        },
        timeout: 120_000,
        maxBuffer: 1 << 24,
      });
      const { job, call } = JSON.parse(stdout.trim().split('\n').at(-1)!);
      expect(job).toMatchObject({ status: 'graded', testCases: [{ passed: true }, { passed: true }] });
      expect(call).toMatchObject({ payload: JSON.stringify({ greeting: 'Hello, World!', uid: 65534 }) });
      expect(call.functionError).toBeUndefined();
      // Nothing was opened to do it.
      const { stdout: mode } = await run('stat', ['-c', '%a', base]);
      expect(mode.trim()).toBe('700');
    },
    180_000,
  );
});

describe('the copy of Node that other users run', () => {
  it.skipIf(!isRoot)(
    'is made once, stays root’s and unchanged, and never goes where another user could reach in (skipped unless root)',
    async () => {
      // A folder like /tmp: root's, everyone's to write in, sticky.
      const temporary = join(base, 'tmp');
      await mkdir(temporary);
      await chmod(temporary, 0o1777);
      const cache = join(temporary, 'grading-node');
      const path = await copyOfNode(cache, process.execPath);
      expect(path).toMatch(new RegExp(`^${cache}/[0-9a-f]{64}/node$`));
      const modes = async (file: string) => {
        const info = await stat(file);
        return { uid: info.uid, mode: (info.mode & 0o7777).toString(8), ino: info.ino };
      };
      const first = await modes(path);
      expect(first).toMatchObject({ uid: 0, mode: '555' });
      for (const folder of [cache, dirname(path)]) expect(await modes(folder)).toMatchObject({ uid: 0, mode: '755' });
      expect(await copyOfNode(cache, process.execPath)).toBe(path);
      expect((await modes(path)).ino).toBe(first.ino); // made once
      // A copy someone could have changed is made again.
      await chmod(path, 0o777);
      expect(await copyOfNode(cache, process.execPath)).toBe(path);
      expect(await modes(path)).toMatchObject({ uid: 0, mode: '555' });
      expect((await modes(path)).ino).not.toBe(first.ino);

      // Another user's folder, or a link, where the cache would go; a folder others may write to without the sticky bit.
      const squatted = join(temporary, 'squatted');
      await mkdir(squatted);
      await chown(squatted, 65534, 65534);
      await expect(copyOfNode(squatted, process.execPath)).rejects.toThrow("is not a folder of root's");
      await symlink(cache, join(temporary, 'linked'));
      await expect(copyOfNode(join(temporary, 'linked'), process.execPath)).rejects.toThrow("is not a folder of root's");
      const open = join(base, 'open');
      await mkdir(open);
      await chmod(open, 0o777);
      await expect(copyOfNode(join(open, 'grading-node'), process.execPath)).rejects.toThrow('may be changed by other users');
      expect(await readdir(open)).toEqual([]);
    },
    120_000,
  );
});
