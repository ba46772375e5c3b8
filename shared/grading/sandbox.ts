import { spawn } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';
import type { Owner } from './checkout-files.ts';

/** The whole environment of a student's command. */
export const COMMAND_PATH = '/usr/local/bin:/usr/bin:/bin';

/** The uid and gid of `nobody`. */
export const UNPRIVILEGED: Owner = { uid: 65534, gid: 65534 };

/**
 * Whom student commands run as. As root, as `nobody`: the command can then neither read the
 * environment of the runner or the worker (/proc/<pid>/environ of another user's process) nor
 * files only root may read, nor signal our processes. Not as root (a developer's machine, a
 * Lambda function) we cannot switch users, so commands run as the current user: they could then
 * read this process's /proc entries — which is why the runner runs in a process (or a Lambda)
 * that holds no credentials at all (see run-in-process.ts).
 */
export const commandUser = (): Owner | undefined => (process.getuid?.() === 0 ? UNPRIVILEGED : undefined);

export interface CommandOptions {
  readonly cwd: string;
  readonly timeoutSeconds: number;
  /** Bytes kept per stream; past 10× this on a stream the command is killed. */
  readonly maxOutputBytes: number;
  readonly user?: Owner;
  readonly signal?: AbortSignal;
}

export interface CapturedStream {
  /** The first maxOutputBytes bytes. */
  readonly kept: Buffer;
  /** All bytes seen (until the command was killed). */
  readonly total: number;
  readonly truncated: boolean;
}

export interface CommandRun {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  /** Killed for writing more than 10× maxOutputBytes to one stream. */
  readonly outputExceeded: boolean;
  /** The command could not be started at all. */
  readonly startError: string | null;
  readonly stdout: CapturedStream;
  readonly stderr: CapturedStream;
  readonly durationMs: number;
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

const killGroup = (pid: number | undefined) => {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
};

/**
 * Kills what is left of a command that left its process group (setsid, double fork): every
 * process whose environment names `home` as HOME or whose working folder is inside it. Needs
 * the right to read those processes' /proc entries (root, or the same user).
 */
export async function killStragglers(home: string): Promise<number> {
  let killed = 0;
  const marker = Buffer.from(`HOME=${home}\0`);
  const entries = await readdir('/proc').catch(() => [] as string[]);
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    const environ = await readFile(`/proc/${pid}/environ`).catch(() => undefined);
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => undefined);
    const ours = (environ && environ.includes(marker)) || (cwd !== undefined && (cwd === home || cwd.startsWith(`${home}/`)));
    if (!ours) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed += 1;
    } catch {
      // Gone meanwhile.
    }
  }
  return killed;
}

/**
 * Runs `command` with /bin/sh in `cwd` (also its HOME), stdin closed, an environment of only
 * PATH, HOME and LANG, in a process group of its own that is killed whole on time-out, when the
 * output floods, and when the shell exits (background processes do not outlive it).
 */
export function runCommand(command: string, options: CommandOptions): Promise<CommandRun> {
  const started = Date.now();
  return new Promise<CommandRun>((resolve) => {
    let timedOut = false;
    let outputExceeded = false;
    let startError: string | null = null;
    let child: ReturnType<typeof spawn>;
    const flood = () => {
      if (!outputExceeded) {
        outputExceeded = true;
        killGroup(child.pid);
      }
    };
    const stdout = capture(options.maxOutputBytes, flood);
    const stderr = capture(options.maxOutputBytes, flood);
    try {
      child = spawn('/bin/sh', ['-c', command], {
        cwd: options.cwd,
        env: { PATH: COMMAND_PATH, HOME: options.cwd, LANG: 'C.UTF-8' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
        uid: options.user?.uid,
        gid: options.user?.gid,
        windowsHide: true,
      });
    } catch (error) {
      resolve({
        exitCode: null, signal: null, timedOut: false, outputExceeded: false, startError: (error as Error).message,
        stdout: stdout.result(), stderr: stderr.result(), durationMs: 0,
      });
      return;
    }
    child.stdout?.on('data', (chunk: Buffer) => stdout.add(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.add(chunk));

    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, Math.max(1, options.timeoutSeconds * 1000));
    const onAbort = () => killGroup(child.pid);
    options.signal?.addEventListener('abort', onAbort, { once: true });

    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOut,
        outputExceeded,
        startError,
        stdout: stdout.result(),
        stderr: stderr.result(),
        durationMs: Date.now() - started,
      });
    };
    child.on('error', (error) => {
      startError = error.message;
      killGroup(child.pid);
      finish();
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Whatever the shell left running goes with it.
      killGroup(child.pid);
      // A process that escaped the group may hold the pipes open: stop waiting for them soon.
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, 500).unref();
    });
    child.on('close', () => finish());
  });
}
