import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJob } from '#shared/grading/harness/run-job.ts';
import type { HarnessJob, HarnessTestCase } from '#shared/grading/harness/protocol.ts';

/**
 * The harness's `container` isolation, as a CodeBuild build runs it: the harness is root in a
 * throwaway container without bubblewrap and makes each test case's namespaces with util-linux.
 * The folder outside /tmp stands for the build's /grading, which holds the job description (with
 * hidden tests' expectations) and the harness.
 */
const asRoot = process.getuid?.() === 0;
let grading: string;
let files: string;
let listener: ReturnType<typeof createServer>;
let port: number;

beforeAll(async () => {
  if (!asRoot) return;
  grading = await mkdtemp('/var/lib/grading-container-test-');
  files = join(grading, 'files');
  await mkdir(files);
  await writeFile(join(grading, 'job.json'), '{"secret":"EXPECTED-OUTPUT-OF-A-HIDDEN-TEST"}');
  await writeFile(join(files, 'main.sh'), 'echo hello from $(id -u)\n');
  listener = createServer((socket) => socket.end('reached\n'));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
});
afterAll(async () => {
  if (!asRoot) return;
  listener.close();
  await rm(grading, { recursive: true, force: true });
});

const limits = { processes: 64, memoryMib: 256, cpuSeconds: 10, fileSizeMib: 16, diskMib: 64 };
const testCase = (name: string, command: string, expect: HarnessTestCase['expect'] = { exit_code: 0 }): HarnessTestCase => ({
  name,
  command,
  timeout_seconds: 10,
  expect,
  limits,
});
const run = async (...testCases: HarnessTestCase[]) => {
  const job: HarnessJob = { testCases, maxOutputBytes: 64 * 1024, isolation: 'container' };
  return (await runJob(job, { files, work: join(grading, 'work'), hide: grading })).testCases;
};

describe.skipIf(!asRoot)('container isolation (the harness as root in a build container)', () => {
  it('runs the command as the student, not root, in a copy of the files', async () => {
    const [outcome] = await run(testCase('runs', 'sh main.sh', { stdout: 'hello from 1002\n' }));
    expect(outcome).toMatchObject({ passed: true });
  });

  it('gives the command no network, loopback included', async () => {
    const probe = `if bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}' 2>/dev/null; then echo CONNECTED; else echo REFUSED; fi`;
    const { execFileSync } = await import('node:child_process');
    expect(execFileSync('sh', ['-c', probe]).toString(), 'the probe reaches the listener outside the sandbox').toBe('CONNECTED\n');
    const [outcome] = await run(testCase('network', probe, { stdout: 'REFUSED\n' }));
    expect(outcome).toMatchObject({ passed: true });
    const [interfaces] = await run(testCase('interfaces', 'test "$(tail -n +3 /proc/net/dev | grep -vc "lo:")" = 0'));
    expect(interfaces).toMatchObject({ passed: true });
  });

  it('hides the harness’s folder and every process outside the test case', async () => {
    const [job] = await run(
      testCase('job description', `cat ${join(grading, 'job.json')} 2>&1; ls -A ${grading} | wc -l`, { stdout: '0\n' }),
    );
    expect(JSON.stringify(job)).not.toContain('EXPECTED-OUTPUT-OF-A-HIDDEN-TEST');
    expect(job!.autochecks[0]!.messages[0]!.type).toBe('failure'); // cat's complaint is on stdout too
    // Every process the command can see is its own: none of the harness's, the build's or root's.
    const [processes] = await run(
      testCase(
        'processes',
        'for p in /proc/[0-9]*; do [ "$(stat -c %u "$p")" = 1002 ] || exit 1; done; test "$(ls -d /proc/[0-9]* | wc -l)" -le 6',
      ),
    );
    expect(processes).toMatchObject({ passed: true });
    const [homes] = await run(testCase('other homes', 'test "$(ls -A /home)" = student && test "$HOME" = /home/student'));
    expect(homes).toMatchObject({ passed: true });
  });

  it('leaves no process behind and writes nowhere but its own folders', async () => {
    const marker = join(grading, 'written-by-student');
    const [daemon] = await run(
      testCase(
        'daemon',
        `(setsid sh -c 'sleep 30; echo late > ${marker}' &) ; touch /etc/evil 2>/dev/null; touch /var/tmp/x /tmp/x; echo done`,
        { stdout: 'done\n' },
      ),
    );
    expect(daemon).toMatchObject({ passed: true });
    const ps = await readFile('/proc/loadavg', 'utf8');
    expect(ps).toBeTruthy();
    const { execFileSync } = await import('node:child_process');
    expect(execFileSync('sh', ['-c', "ps -eo uid=,args= | awk '$1==1002' | wc -l"]).toString().trim()).toBe('0');
    await expect(readFile('/etc/evil')).rejects.toThrow();
    await expect(readFile('/var/tmp/x')).rejects.toThrow();
  });

  it('reports a limit as the student sees it', async () => {
    const [outcome] = await run({ ...testCase('fork bomb', 'f() { f | f & }; f; sleep 5'), limits: { ...limits, processes: 16 } });
    expect(outcome!.passed).toBe(false);
    expect(outcome!.message).toMatch(/process/i);
  });
});
