import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessBundle } from '#shared/grading/harness/bundle.ts';
import { runJob } from '#shared/grading/harness/run-job.ts';
import { readableNode } from '#shared/grading/runner/readable-node.ts';
import { COMMAND_PATH } from '#shared/grading/harness/student-sandbox.ts';
import type { HarnessJob, HarnessTestCase, TestCaseOutcome } from '#shared/grading/harness/protocol.ts';
import { processesWith } from './fixtures.ts';
import { hostile } from './hostile.ts';

/**
 * The harness's `container` isolation, as a CodeBuild build runs it: the harness is root in a
 * throwaway privileged container without bubblewrap and makes each test case's sandbox with
 * util-linux. The folder outside /tmp stands for the build's /grading, which holds the job
 * description (with hidden tests' expectations), the harness and the result; the attacks are
 * those of sandbox-attacks.test.ts (the same hostile scripts), made against this mode.
 */
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
let grading: string;
let files: string;
let listeners: Server[];

const listen = (host: string) =>
  new Promise<Server>((resolve) => {
    const server = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end('hello from the build\n');
    });
    server.listen(0, host, () => resolve(server));
  });
const portOf = (server: Server) => (server.address() as { port: number }).port;

beforeAll(async () => {
  if (!asRoot) return;
  grading = await mkdtemp('/var/lib/grading-container-test-');
  files = join(grading, 'job', 'files');
  await mkdir(files, { recursive: true });
  await writeFile(join(grading, 'job', 'job.json'), '{"secret":"EXPECTED-OUTPUT-OF-A-HIDDEN-TEST"}');
  await writeFile(join(grading, 'result.json'), '{"testCases":[]}');
  for (const [path, content] of Object.entries(hostile)) {
    await mkdir(dirname(join(files, path)), { recursive: true });
    if (typeof content === 'string') await writeFile(join(files, path), content);
    else if ('link' in content) await symlink(content.link, join(files, path));
    else if ('zeros' in content) throw new Error(`${path}: the hostile submission has no sparse files`);
    else await writeFile(join(files, path), content.content, { mode: content.mode });
  }
  await writeFile(join(files, 'main.sh'), 'echo hello from $(id -u)\n');
  listeners = [await listen('127.0.0.1'), await listen('::1')];
});
afterAll(async () => {
  if (!asRoot) return;
  for (const listener of listeners ?? []) listener.close();
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
/** A test case whose output is shown: its expectation (`stdout: ''`) fails. */
const show = (name: string, command: string) => testCase(name, command, { stdout: '' });
const printed = (outcome: TestCaseOutcome | undefined): string => {
  const shown = outcome?.autochecks.find((check) => check.description === 'Standard output');
  if (shown === undefined) throw new Error(`no output shown: ${JSON.stringify(outcome)}`);
  return shown.actual ?? '';
};
const run = async (...testCases: HarnessTestCase[]) => {
  const job: HarnessJob = { testCases, maxOutputBytes: 64 * 1024, isolation: 'container' };
  return (await runJob(job, { files, work: join(grading, 'work') })).testCases;
};

/** Runs a hostile script in the build itself, outside any sandbox: the attack is real there. */
const outside = (command: string, args: string[]) => {
  try {
    return execFileSync(command, args, { cwd: files, timeout: 20_000 }).toString();
  } catch (error) {
    return String((error as { stdout?: Buffer }).stdout ?? '');
  }
};
const targets = () => [`127.0.0.1:${portOf(listeners[0]!)}`, `[::1]:${portOf(listeners[1]!)}`, `localhost:${portOf(listeners[0]!)}`];

describe.skipIf(!asRoot)('container isolation (the harness as root in a build container)', () => {
  it('runs the command as the student, not root, in a copy of the files', async () => {
    const [outcome] = await run(testCase('runs', 'sh main.sh', { stdout: 'hello from 1002\n' }));
    expect(outcome).toMatchObject({ passed: true });
  });

  it('1. gives the command no network: its own loopback only, no route, nothing of the build’s', async () => {
    expect(outside('perl', ['net.pl', ...targets()]), 'the build itself reaches its listeners').toContain(
      `target ${targets()[0]}: CONNECTED`,
    );
    const [outcome] = await run(show('network', `perl net.pl ${targets().join(' ')}`));
    const text = printed(outcome);
    expect(text).toContain('control: connected'); // the sandbox's own loopback works
    for (const target of targets()) expect(text).toContain(`target ${target}: unreachable`);
    expect(text).not.toContain('CONNECTED');
    expect(text).toContain('interfaces: lo\n');
    expect(text).toContain('routes: 0\n');
  });

  it("1. cannot reach the build's credentials endpoint nor find the build's credentials in its environment", async () => {
    // A network of its own stands for the build's: CodeBuild's container credentials endpoint at
    // 169.254.170.2:80, and the variables a build has (the endpoint's path, credentials some images export).
    const folder = join(grading, 'credentials');
    await mkdir(join(folder, 'work'), { recursive: true });
    await writeFile(join(folder, 'harness.mjs'), await harnessBundle());
    await writeFile(
      join(folder, 'endpoint.mjs'),
      [
        "import { createServer } from 'node:http';",
        "import { writeFileSync } from 'node:fs';",
        'createServer((request, response) => response.end(\'{"SecretAccessKey":"ROLE-SECRET-FROM-THE-ENDPOINT"}\'))',
        "  .listen(80, '169.254.170.2', () => writeFileSync(process.argv[2], ''));",
      ].join('\n'),
    );
    const node = await readableNode();
    const script = [
      'set -e',
      'ip link set lo up && ip addr add 169.254.170.2/32 dev lo',
      `"${node}" ${folder}/endpoint.mjs ${folder}/ready & endpoint=$!`,
      `while [ ! -e ${folder}/ready ]; do sleep 0.05; done`,
      `echo "build: $("${node}" -e 'fetch("http://169.254.170.2"+process.env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI).then((r)=>r.text()).then(console.log)')" >&2`,
      `"${node}" ${folder}/harness.mjs --files ${files} --work ${folder}/work --job - --result -`,
      'kill $endpoint',
    ].join('\n');
    const job: HarnessJob = {
      testCases: [show('credentials', 'env; cat /proc/1/environ | tr "\\0" "\\n"; perl net.pl 169.254.170.2:80')],
      maxOutputBytes: 64 * 1024,
      isolation: 'container',
    };
    const harness = spawnSync('unshare', ['--net', '--', 'sh', '-c', script], {
      input: JSON.stringify(job),
      env: {
        PATH: process.env.PATH ?? COMMAND_PATH,
        AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '/v2/credentials/ROLE-ENDPOINT-PATH',
        AWS_ACCESS_KEY_ID: 'ASIAROLEKEYIDMARK',
        AWS_SECRET_ACCESS_KEY: 'ROLE-SECRET-IN-THE-ENVIRONMENT',
        AWS_SESSION_TOKEN: 'ROLE-TOKEN-IN-THE-ENVIRONMENT',
      },
      timeout: 60_000,
    });
    expect(harness.stderr.toString(), 'the build itself reaches the endpoint').toContain('ROLE-SECRET-FROM-THE-ENDPOINT');
    expect(harness.status, String(harness.error ?? harness.stderr)).toBe(0);
    const [outcome] = (JSON.parse(harness.stdout.toString()) as { testCases: TestCaseOutcome[] }).testCases;
    const text = printed(outcome);
    expect(text).toContain('control: connected');
    expect(text).toContain('target 169.254.170.2:80: unreachable');
    expect(text).toContain('PATH=');
    for (const mark of ['ROLE-', 'ASIAROLE', 'AWS_', '169.254.170.2:80: CONNECTED']) expect(text).not.toContain(mark);
  });

  it('2. sees nothing but its own files and a read-only toolchain: no harness, job, result, other case or process', async () => {
    // Another test case's files: left behind where a case's folder is made, they must stay out of reach.
    const otherCase = join(grading, 'work', 'case-other');
    await mkdir(otherCase, { recursive: true });
    await writeFile(join(otherCase, 'answer.txt'), 'another test case’s file');
    const paths = [
      grading,
      join(grading, 'job', 'job.json'),
      join(grading, 'result.json'),
      join(grading, 'work'),
      join(otherCase, 'answer.txt'),
      '/var/lib',
      '/etc/shadow',
      '/root',
      '/var',
      '/run',
      '/sys/fs/cgroup',
      '/codebuild',
    ];
    const readOnly = ['/usr/bin/x', '/etc/passwd', '/etc/x', '/x', '/bin/x', '/dev/x', '/proc/x', '/home/x', '/var/tmp/x', '/opt/x'];
    const [peek, write] = await run(
      show('peek', `sh peek.sh ${paths.join(' ')}`),
      show(
        'write',
        `for path in ./mine /tmp/mine ${readOnly.join(' ')}; do if touch "$path" 2>/dev/null; then echo "WROTE $path"; else echo "refused $path"; fi; done`,
      ),
    );
    const text = printed(peek);
    expect(text).toContain('control: my own file');
    for (const path of paths) expect(text).toContain(`hidden ${path}`);
    expect(text).not.toContain('SEEN');
    expect(text).not.toContain('EXPECTED-OUTPUT-OF-A-HIDDEN-TEST');
    expect(text).not.toContain('SAW A PROCESS OUTSIDE');
    expect(Number(/processes: (\d+)/.exec(text)?.[1])).toBeLessThan(10);
    expect(text).toContain('uid: 1002');
    expect(printed(write)).toContain('WROTE ./mine'); // its own folders are writable …
    expect(printed(write)).toContain('WROTE /tmp/mine');
    for (const path of readOnly) expect(printed(write)).toContain(`refused ${path}`); // … nothing else is
    // Nothing it tried reached the build's own file system either.
    for (const path of ['/etc/x', '/x', '/var/tmp/x', '/opt/x', '/home/x']) await expect(readFile(path)).rejects.toThrow();
  });

  it('2. cannot make a user namespace, and so no way to get capabilities or mounts of its own', async () => {
    expect(execFileSync('setpriv', ['--reuid=1002', '--regid=1002', '--clear-groups', 'unshare', '-U', 'true']).toString()).toBe(''); // the build lets uid 1002 make one
    const [outcome] = await run(
      show(
        'user namespace',
        'unshare -U true 2>/dev/null && echo "MADE A USER NAMESPACE" || echo "refused -U"; unshare -Ur true 2>/dev/null && echo "MADE A ROOT" || echo "refused -Ur"; echo "max: $(cat /proc/sys/user/max_user_namespaces)"; grep -E "^(CapEff|CapBnd|NoNewPrivs)" /proc/self/status',
      ),
    );
    const text = printed(outcome);
    expect(text).toContain('refused -U');
    expect(text).toContain('refused -Ur');
    expect(text).not.toContain('MADE');
    expect(text).toContain('CapEff:\t0000000000000000');
    expect(text).toContain('NoNewPrivs:\t1');
  });

  it('3 and 4. nothing outlives its test case; the next test case finds nothing of it', async () => {
    const marker = `daemon-${randomUUID()}`;
    const [daemon, after] = await run(show('daemon', `sh daemon.sh ${marker}`), show('after', 'sh traces.sh'));
    expect(await processesWith(marker)).toEqual([]);
    expect(printed(daemon)).toMatch(/started [1-9]/);
    const traces = printed(after);
    expect(traces).toContain('control: my own file');
    expect(traces).toContain('heartbeats: 0');
    expect(execFileSync('sh', ['-c', "ps -eo uid=,args= | awk '$1==1002' | wc -l"]).toString().trim()).toBe('0');
    expect(await readdir(join(grading, 'work'))).toEqual(['case-other']); // every case's folder is gone
  });

  it('5. reports a limit as the student sees it', async () => {
    const [outcome] = await run({ ...testCase('fork bomb', 'sh fork.sh'), limits: { ...limits, processes: 16 } });
    expect(outcome!.passed).toBe(false);
    expect(outcome!.message).toMatch(/process/i);
  });

  it('6. cannot make the grader lie, however it fakes results and whatever it kills', async () => {
    const outcomes = await run(
      show('attack', 'sh lie.sh'),
      testCase('fails', 'false', { exit_code: 0 }),
      testCase('passes', 'true', { exit_code: 0 }),
    );
    expect(outcomes.map((outcome) => [outcome.name, outcome.passed, outcome.message])).toEqual([
      ['attack', false, 'Wrong output'],
      ['fails', false, 'Exited with code 1 (expected 0)'],
      ['passes', true, 'Passed'],
    ]);
    const text = printed(outcomes[0]);
    expect(text).toContain('"name":"Rigged"');
    expect(text).not.toContain('FOUND THE HARNESS');
    expect(text).toContain('end');
  });

  it('fails the job, running nothing, when the build cannot make the sandbox', async () => {
    // The bundled harness run as an ordinary user, who may make no mount: no weaker sandbox instead, no grade.
    const folder = join(grading, 'as-nobody');
    await mkdir(join(folder, 'work'), { recursive: true });
    await chmod(grading, 0o711);
    await chown(folder, NOBODY, NOBODY);
    await chown(join(folder, 'work'), NOBODY, NOBODY);
    await writeFile(join(folder, 'harness.mjs'), await harnessBundle());
    const marker = join(folder, 'work', 'ran');
    const job: HarnessJob = { testCases: [testCase('runs', `touch ${marker}`)], maxOutputBytes: 4096, isolation: 'container' };
    // This process's Node, or a copy nobody may run when the project's folder is root's alone.
    const node = await readableNode();
    const harness = spawnSync(
      node,
      [join(folder, 'harness.mjs'), '--files', files, '--work', join(folder, 'work'), '--job', '-', '--result', '-'],
      { input: JSON.stringify(job), uid: NOBODY, gid: NOBODY, env: { PATH: COMMAND_PATH }, timeout: 60_000 },
    );
    expect(harness.status, String(harness.error ?? harness.stderr)).toBe(1);
    expect(harness.stdout.toString()).toBe('');
    expect(harness.stderr.toString()).toContain("The build cannot make the test cases' sandbox, so nothing was run");
    await expect(readFile(marker)).rejects.toThrow();
  });
});
