import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runCase } from '#shared/grading/harness/run-case.ts';
import { STUDENT } from '#shared/grading/harness/student-sandbox.ts';
import { discoverToolchain, ETC_GENERATED, isToolchainEtc } from '#shared/grading/harness/toolchain.ts';
import { usedBytes } from '#shared/grading/harness/watch.ts';
import { processesWith } from './fixtures.ts';

// The harness's look at a test case's processes fails from here on (as when the machine runs out
// of file descriptors); killing the case still works, as it reads /proc on its own.
vi.mock('#shared/grading/harness/watch.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('#shared/grading/harness/watch.ts')>();
  const tooManyFiles = () => Promise.reject(Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' }));
  return { ...real, sampleCase: vi.fn(tooManyFiles) };
});

const work = await mkdtemp(join(tmpdir(), 'unwatched-'));
await chmod(work, 0o755); // the command's user goes through it to its folders
afterAll(() => rm(work, { recursive: true, force: true }));

describe('a test case the harness cannot watch', () => {
  it('is stopped, and the run fails instead of grading a command whose limits nobody enforced', async () => {
    const [home, tmp, shm] = ['home', 'tmp', 'shm'].map((name) => join(work, name)) as [string, string, string];
    const runAs = process.getuid?.() === 0 ? { uid: STUDENT.uid, gid: STUDENT.gid } : undefined;
    for (const folder of [home, tmp, shm]) {
      await mkdir(folder);
      if (runAs) await chown(folder, runAs.uid, runAs.gid);
    }
    const marker = `unwatched-marker-${process.pid}`;
    const run = runCase({
      command: `sh -c "sleep 60; true" ${marker}`,
      limits: { processes: 16, memoryMib: 64, cpuSeconds: 60, fileSizeMib: 8, diskMib: 32 },
      timeoutSeconds: 60,
      maxOutputBytes: 65_536,
      isolation: 'namespaces',
      home,
      tmp,
      shm,
      disk: { path: work, usedBefore: await usedBytes(work) },
      toolchain: discoverToolchain('/', (name) => isToolchainEtc(name) || ETC_GENERATED.includes(name)),
      prlimit: '/usr/bin/prlimit',
      runAs,
    });
    // Within the test's 15 s (the command would sleep 60), and nothing of it is left.
    await expect(run).rejects.toThrow("The test case's processes could not be watched: EMFILE: too many open files");
    expect(await processesWith(marker)).toEqual([]);
  }, 15_000);
});
