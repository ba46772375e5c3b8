import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { config } from '#shared/config.ts';
import { CHECKOUT_TIME_LIMIT_MS } from '../checkout/checkout.ts';
import { jobTimeLimitMs } from './launcher.ts';
import { readableNode } from './readable-node.ts';
import { runnerEntry } from './bundle.ts';
import { isCommitId } from '../checkout/error.ts';
import type { CheckedOutLine, RunHooks, RunRequest, RunResult } from '../runner-protocol.ts';

/** Time on top of the checkout's and the harness's own limits: start-up, clean-up. */
export const RUN_OVERHEAD_MS = 15_000;
/** After SIGTERM, how long the runner may take to stop its command and clean up. */
const STOP_GRACE_MS = 5_000;

/** The runner's whole environment: no DYNAMODB_ENDPOINT, SIGNING_SECRET_FILE, AWS_* or tokens. */
export function runnerEnvironment(): Record<string, string> {
  const env: Record<string, string> = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: tmpdir(), LANG: 'C.UTF-8' };
  const fileRepositories = config('FILE_REPOSITORIES_DIR');
  if (fileRepositories) env.FILE_REPOSITORIES_DIR = fileRepositories;
  return env;
}

/**
 * Runs `request` in a separate Node process (cli.ts, bundled by bundle.ts) that
 * holds none of this process's environment, so student code cannot find credentials even by
 * reading its parent's /proc/<pid>/environ. Its checkout's commit reaches `hooks.onCheckout` while it runs (a
 * rejection stops it). Rejects (a fault of this machine, worth a retry) when the runner crashes,
 * answers nonsense or exceeds the checkout's and the harness's time limits plus RUN_OVERHEAD_MS.
 */
export async function runIsolated(request: RunRequest, hooks: RunHooks = {}): Promise<RunResult> {
  const limitMs = CHECKOUT_TIME_LIMIT_MS + jobTimeLimitMs(request.testCases) + RUN_OVERHEAD_MS;
  const cli = await runnerEntry();
  // Started from the copy of Node its sandboxes use (root only), the runner need not make one per job.
  const node = await readableNode();
  return new Promise<RunResult>((resolve, reject) => {
    const child = spawn(node, [cli], { env: runnerEnvironment(), stdio: ['pipe', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let partial = '';
    const stderr: Buffer[] = [];
    let stderrBytes = 0;
    let timedOut = false;
    let kill: NodeJS.Timeout | undefined;
    const stop = () => {
      child.kill('SIGTERM');
      kill ??= setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    };
    // The hook's work (recording the commit) is awaited before the result counts.
    let reported: Promise<void> = Promise.resolve();
    let hookFailure: Error | undefined;
    const onLine = (line: string) => {
      const commit = checkedOutCommit(line);
      if (commit === undefined) return lines.push(line);
      reported = reported
        .then(() => hooks.onCheckout?.(commit))
        .catch((error: unknown) => {
          hookFailure ??= error instanceof Error ? error : new Error(String(error));
          stop();
        });
    };
    child.stdout.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      for (const part of parts) onLine(part);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderrBytes < 64 * 1024) stderr.push(chunk);
      stderrBytes += chunk.length;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, limitMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      clearTimeout(kill);
      reject(new Error(`The grading runner could not be started: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(kill);
      if (partial) onLine(partial);
      const errors = Buffer.concat(stderr).toString('utf8').trim();
      void reported.then(() => {
        if (hookFailure) return reject(hookFailure);
        if (timedOut) return reject(new Error(`The grading runner took longer than ${Math.round(limitMs / 1000)} s and was stopped.`));
        if (code !== 0) return reject(new Error(`The grading runner failed (${signal ?? `exit code ${code}`}): ${errors.slice(-2000)}`));
        try {
          resolve(JSON.parse(lines.join('\n')) as RunResult);
        } catch {
          reject(new Error('The grading runner answered something other than JSON.'));
        }
      });
    });
    child.stdin.on('error', () => undefined); // a runner that died early is reported on close
    child.stdin.end(JSON.stringify(request));
  });
}

/** The commit of a runner's `{"checkedOut":…}` line; undefined for any other line. */
function checkedOutCommit(line: string): string | undefined {
  if (!line.startsWith('{"checkedOut":')) return undefined;
  try {
    const { checkedOut } = JSON.parse(line) as Partial<CheckedOutLine>;
    return isCommitId(checkedOut) ? checkedOut : undefined;
  } catch {
    return undefined;
  }
}
