import { spawn, type ChildProcess } from 'node:child_process';
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

type Settle = { readonly resolve: (run: CaseRun) => void; readonly reject: (error: Error) => void };

/**
 * Runs one test case's command and returns how it ended. In `namespaces` isolation the command
 * runs in a nested sandbox whose every process the harness watches (process count, memory of
 * all together, CPU time, disk use) and kills at a limit, at the time limit, when the output
 * floods or on `signal`; the run returns only after bubblewrap exited, which it does only once
 * no process of the sandbox is left. It fails, the command killed, when the watching itself fails.
 */
export function runCase(setup: CaseSetup, signal?: AbortSignal): Promise<CaseRun> {
  const started = Date.now();
  return new Promise<CaseRun>((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawnCommand(setup);
    } catch (error) {
      reject(error as Error);
      return;
    }
    new RunningCase(setup, child, started, signal, { resolve, reject }).start();
  });
}

/**
 * A started test case until it ended: its output, its time limit, the watching of its processes
 * (nested sandboxes), the kills at a limit, and how it ended, settled once.
 */
class RunningCase {
  private readonly setup: CaseSetup;
  private readonly child: ChildProcess;
  private readonly started: number;
  private readonly signal: AbortSignal | undefined;
  private readonly settle: Settle;
  private readonly nested: boolean;
  private readonly stdout: ReturnType<typeof capture>;
  private readonly stderr: ReturnType<typeof capture>;
  private readonly diskLimit: number;
  private readonly onAbort = () => this.killAll();

  private timedOut = false;
  private outputExceeded = false;
  private killedAt: WatchedLimit | null = null;
  private cpuLimitReached = false;
  private startError: string | null = null;

  private exited = false;
  private killing: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private watcher: NodeJS.Timeout | undefined;
  private watching = false;
  private failedLooks = 0;
  private unwatched: Error | undefined;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private settled = false;

  constructor(setup: CaseSetup, child: ChildProcess, started: number, signal: AbortSignal | undefined, settle: Settle) {
    this.setup = setup;
    this.child = child;
    this.started = started;
    this.signal = signal;
    this.settle = settle;
    this.nested = setup.isolation !== 'none';
    this.stdout = capture(setup.maxOutputBytes, () => this.flood());
    this.stderr = capture(setup.maxOutputBytes, () => this.flood());
    this.diskLimit = setup.limits.diskMib * 1024 * 1024;
  }

  /** Reads the command's output, starts its time limit and its watching, and waits for its end. */
  start(): void {
    const { child } = this;
    child.stdout?.on('data', (chunk: Buffer) => this.stdout.add(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.stderr.add(chunk));
    this.timer = setTimeout(
      () => {
        this.timedOut = true;
        this.killAll();
      },
      Math.max(1, this.setup.timeoutSeconds * 1000),
    );
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
    this.watcher = this.nested ? setInterval(() => this.watchOnce(), WATCH_INTERVAL_MS) : undefined;
    child.on('error', (error) => {
      this.startError = error.message;
      this.killAll();
      void this.finish();
    });
    child.on('exit', (code, exitSignal) => this.onExit(code, exitSignal));
    child.on('close', () => void this.finish());
  }

  private killAll(): void {
    if (this.child.pid === undefined || this.exited) return;
    const pid = this.child.pid;
    if (this.nested) {
      // Kill the sandbox's processes (its init among them), again and again until bubblewrap
      // exits: it does so only once every process of the sandbox is gone.
      if (this.killing) return;
      const attempt = () => void killCase(pid).catch(() => undefined);
      attempt();
      this.killing = setInterval(attempt, 10);
      return;
    }
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }

  private flood(): void {
    if (!this.outputExceeded) {
      this.outputExceeded = true;
      this.killAll();
    }
  }

  private stopAt(limit: WatchedLimit): void {
    this.killedAt ??= limit;
    this.killAll();
  }

  private async diskUsed(): Promise<number> {
    return (await usedBytes(this.setup.disk.path)) - this.setup.disk.usedBefore;
  }

  /** One look, unless the last is still under way or the case is already being stopped. */
  private watchOnce(): void {
    if (this.watching || this.killedAt || this.unwatched) return;
    this.watching = true;
    void this.look()
      .then(() => {
        this.failedLooks = 0;
      })
      .catch((error: unknown) => {
        if (++this.failedLooks < MAX_FAILED_LOOKS) return;
        this.unwatched = new Error(`The test case's processes could not be watched: ${(error as Error).message}`);
        this.killAll();
      })
      .finally(() => {
        this.watching = false;
      });
  }

  private async look(): Promise<void> {
    // No pid: the command did not start, and its 'error' event ends the run.
    if (this.child.pid === undefined) return;
    const { limits } = this.setup;
    const sample = await sampleCase(this.child.pid);
    if (sample.maxCpuSeconds >= limits.cpuSeconds) this.cpuLimitReached = true;
    if (sample.tasks >= limits.processes) this.stopAt('processes');
    else if (sample.memoryKib > limits.memoryMib * 1024) this.stopAt('memory');
    else if ((await this.diskUsed()) > this.diskLimit) this.stopAt('disk');
  }

  private onExit(code: number | null, exitSignal: NodeJS.Signals | null): void {
    this.exit = { code, signal: exitSignal };
    if (!this.nested) this.killAll(); // whatever the shell left running in its group goes with it
    this.exited = true;
    clearInterval(this.killing);
    // A process that escaped (unsafe mode) may hold the pipes open: stop waiting for them soon.
    setTimeout(() => {
      this.child.stdout?.destroy();
      this.child.stderr?.destroy();
      void this.finish();
    }, 500).unref();
  }

  private async finish(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    clearInterval(this.watcher);
    clearInterval(this.killing);
    this.signal?.removeEventListener('abort', this.onAbort);
    if (this.unwatched) {
      this.settle.reject(this.unwatched);
      return;
    }
    try {
      // The disk may have filled between two looks: judge it once more, at the end.
      if (this.nested && !this.killedAt && (await this.diskUsed()) >= this.diskLimit) this.killedAt = 'disk';
    } catch (error) {
      this.settle.reject(error as Error);
      return;
    }
    this.settle.resolve(this.ended());
  }

  private ended(): CaseRun {
    const err = this.stderr.result();
    return {
      exitCode: this.exit?.code ?? null,
      signal: this.exit?.signal ?? null,
      timedOut: this.timedOut,
      outputExceeded: this.outputExceeded,
      startError: this.startError,
      killedAt: this.killedAt,
      cpuLimitReached: this.cpuLimitReached,
      stderr: err.kept.toString('utf8'),
      stdout: this.stdout.result(),
      stderrStream: err,
      durationMs: Date.now() - this.started,
    };
  }
}
