import { spawn } from 'node:child_process';
import type { CaseLimits, Isolation } from './protocol.ts';
import { commandEnvironment, containerSandboxArgs, rlimitArgs, STUDENT, studentSandboxArgs } from './student-sandbox.ts';
import type { ToolchainMount } from './toolchain.ts';
import type { CaseEnd, WatchedLimit } from './verdict.ts';
import { killCase, sampleCase, usedBytes } from './watch.ts';

/** How often the harness looks at a running test case's processes, memory and disk. */
const WATCH_INTERVAL_MS = 50;
/**
 * Looks in a row that may fail (a machine short of file descriptors for a moment) before the test
 * case is stopped and the run fails: limits nobody watches are not enforced, and the grade must
 * not come from a run that may have exceeded them.
 */
const MAX_FAILED_LOOKS = 20;

export interface CapturedStream {
  /** The first maxOutputBytes bytes. */
  readonly kept: Buffer;
  /** All bytes seen (until the command was killed). */
  readonly total: number;
  readonly truncated: boolean;
}

export interface CaseRun extends CaseEnd {
  readonly stdout: CapturedStream;
  readonly stderrStream: CapturedStream;
  readonly durationMs: number;
}

export interface CaseSetup {
  readonly command: string;
  readonly limits: CaseLimits;
  readonly timeoutSeconds: number;
  readonly maxOutputBytes: number;
  readonly isolation: Isolation;
  /** The test case's folders: its home (the copy of the submission), /tmp and /dev/shm. */
  readonly home: string;
  readonly tmp: string;
  readonly shm: string;
  /** The file system whose use counts as the test case's disk, and its use before the case's folder was made. */
  readonly disk: { readonly path: string; readonly usedBefore: number };
  readonly toolchain: readonly ToolchainMount[];
  readonly prlimit: string | undefined;
  /** The host user to run the command as (when the harness itself is root). */
  readonly runAs?: { readonly uid: number; readonly gid: number };
  /** In `container` isolation: an empty folder of the test case's, where its new root is mounted. */
  readonly root?: string;
}

function capture(limit: number, onFlood: () => void) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  return {
    add(chunk: Buffer) {
      total += chunk.length;
      if (kept < limit) {
        const part = chunk.subarray(0, limit - kept);
        chunks.push(part);
        kept += part.length;
      }
      if (total > limit * 10) onFlood();
    },
    result(): CapturedStream {
      return { kept: Buffer.concat(chunks), total, truncated: total > kept };
    },
  };
}

function spawnCommand(setup: CaseSetup) {
  if (setup.isolation === 'namespaces') {
    if (!setup.prlimit) throw new Error('prlimit is needed to set the limits of test commands');
    const args = studentSandboxArgs({ ...setup, prlimit: setup.prlimit });
    return spawn('bwrap', args, {
      env: commandEnvironment(STUDENT.home),
      stdio: ['ignore', 'pipe', 'pipe'],
      uid: setup.runAs?.uid,
      gid: setup.runAs?.gid,
    });
  }
  if (setup.isolation === 'container') {
    if (!setup.prlimit) throw new Error('prlimit is needed to set the limits of test commands');
    if (!setup.root) throw new Error('container isolation needs a folder for the test case’s root');
    // As root: the setup inside the namespaces drops to the student's uid itself.
    const args = containerSandboxArgs({ ...setup, prlimit: setup.prlimit, root: setup.root });
    return spawn('unshare', args, { env: commandEnvironment(STUDENT.home), stdio: ['ignore', 'pipe', 'pipe'] });
  }
  // The unsafe development mode: a process group in the home folder, limits where prlimit exists.
  const shell = ['/bin/sh', '-c', setup.command] as const;
  const [file, ...args] = setup.prlimit ? [setup.prlimit, ...rlimitArgs(setup.limits), '--', ...shell] : shell;
  return spawn(file, args, {
    cwd: setup.home,
    env: commandEnvironment(setup.home),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    uid: setup.runAs?.uid,
    gid: setup.runAs?.gid,
  });
}

/**
 * Runs one test case's command and returns how it ended. In `namespaces` isolation the command
 * runs in a nested sandbox whose every process the harness watches (process count, memory of
 * all together, CPU time, disk use) and kills at a limit, at the time limit, when the output
 * floods or on `signal`; the run returns only after bubblewrap exited, which it does only once
 * no process of the sandbox is left. It fails, the command killed, when the watching itself fails.
 */
export function runCase(setup: CaseSetup, signal?: AbortSignal): Promise<CaseRun> {
  const started = Date.now();
  const nested = setup.isolation !== 'none';
  return new Promise<CaseRun>((resolve, reject) => {
    let timedOut = false;
    let outputExceeded = false;
    let killedAt: WatchedLimit | null = null;
    let cpuLimitReached = false;
    let startError: string | null = null;
    let child: ReturnType<typeof spawn>;

    let exited = false;
    let killing: NodeJS.Timeout | undefined;
    const killAll = () => {
      if (child?.pid === undefined || exited) return;
      const pid = child.pid;
      if (nested) {
        // Kill the sandbox's processes (its init among them), again and again until bubblewrap
        // exits: it does so only once every process of the sandbox is gone.
        if (killing) return;
        const attempt = () => void killCase(pid).catch(() => undefined);
        attempt();
        killing = setInterval(attempt, 10);
        return;
      }
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const flood = () => {
      if (!outputExceeded) {
        outputExceeded = true;
        killAll();
      }
    };
    const stdout = capture(setup.maxOutputBytes, flood);
    const stderr = capture(setup.maxOutputBytes, flood);
    try {
      child = spawnCommand(setup);
    } catch (error) {
      reject(error as Error);
      return;
    }
    child.stdout?.on('data', (chunk: Buffer) => stdout.add(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.add(chunk));

    const timer = setTimeout(
      () => {
        timedOut = true;
        killAll();
      },
      Math.max(1, setup.timeoutSeconds * 1000),
    );
    const onAbort = () => killAll();
    signal?.addEventListener('abort', onAbort, { once: true });

    const diskLimit = setup.limits.diskMib * 1024 * 1024;
    const diskUsed = async () => (await usedBytes(setup.disk.path)) - setup.disk.usedBefore;
    const stopAt = (limit: WatchedLimit) => {
      killedAt ??= limit;
      killAll();
    };
    let watching = false;
    let failedLooks = 0;
    let unwatched: Error | undefined;
    const watcher = nested
      ? setInterval(() => {
          if (watching || killedAt || unwatched) return;
          watching = true;
          void (async () => {
            // No pid: the command did not start, and its 'error' event ends the run.
            if (child.pid === undefined) return;
            const sample = await sampleCase(child.pid);
            if (sample.maxCpuSeconds >= setup.limits.cpuSeconds) cpuLimitReached = true;
            if (sample.tasks >= setup.limits.processes) stopAt('processes');
            else if (sample.memoryKib > setup.limits.memoryMib * 1024) stopAt('memory');
            else if ((await diskUsed()) > diskLimit) stopAt('disk');
          })()
            .then(() => {
              failedLooks = 0;
            })
            .catch((error: unknown) => {
              if (++failedLooks < MAX_FAILED_LOOKS) return;
              unwatched = new Error(`The test case's processes could not be watched: ${(error as Error).message}`);
              killAll();
            })
            .finally(() => {
              watching = false;
            });
        }, WATCH_INTERVAL_MS)
      : undefined;

    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    const finish = async () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(watcher);
      clearInterval(killing);
      signal?.removeEventListener('abort', onAbort);
      if (unwatched) {
        reject(unwatched);
        return;
      }
      try {
        // The disk may have filled between two looks: judge it once more, at the end.
        if (nested && !killedAt && (await diskUsed()) >= diskLimit) killedAt = 'disk';
      } catch (error) {
        reject(error as Error);
        return;
      }
      const err = stderr.result();
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOut,
        outputExceeded,
        startError,
        killedAt,
        cpuLimitReached,
        stderr: err.kept.toString('utf8'),
        stdout: stdout.result(),
        stderrStream: err,
        durationMs: Date.now() - started,
      });
    };
    child.on('error', (error) => {
      startError = error.message;
      killAll();
      void finish();
    });
    child.on('exit', (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      if (!nested) killAll(); // whatever the shell left running in its group goes with it
      exited = true;
      clearInterval(killing);
      // A process that escaped (unsafe mode) may hold the pipes open: stop waiting for them soon.
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        void finish();
      }, 500).unref();
    });
    child.on('close', () => void finish());
  });
}
