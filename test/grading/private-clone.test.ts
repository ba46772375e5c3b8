import { execFile } from 'node:child_process';
import { chmod, copyFile, link, mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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
