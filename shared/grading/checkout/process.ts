import { config } from '#shared/config.ts';
import { spawn } from 'node:child_process';
import { readFile, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleForNode } from '../esbuild-bundle.ts';
import { CheckoutError, isCommitId, UnreachableCommitError } from './error.ts';
import { formatBytes } from './files.ts';
import type { RunRequest } from '../runner-protocol.ts';

/** How long a checkout may take, start to end, before its process is killed. */
export const CHECKOUT_TIME_LIMIT_MS = 45_000;
/** The resident memory a checkout's process may reach before it is killed. */
export const CHECKOUT_MEMORY_LIMIT_BYTES = 512 * 1024 * 1024;
/** Between two looks at the checkout process's resident memory. */
const MEMORY_LOOK_MS = 25;

export interface CheckoutProcessLimits {
  readonly timeMs: number;
  readonly memoryBytes: number;
}

export const checkoutProcessLimits: CheckoutProcessLimits = { timeMs: CHECKOUT_TIME_LIMIT_MS, memoryBytes: CHECKOUT_MEMORY_LIMIT_BYTES };

/** What the checkout process reads from its standard input: the run, and the folder (made by its parent) to check it out into. */
export interface CheckoutChildInput {
  readonly request: RunRequest;
  readonly root: string;
  /** The process exits by itself once this is past, should its parent be gone. */
  readonly deadline: number;
}

/** The checkout process's one line on its standard output. */
export type CheckoutChildOutput =
  | { readonly checkedOut: { readonly submission: string; readonly commit?: string } }
  /** A CheckoutError: the student's to fix; `unreachable` is the commit of an UnreachableCommitError. */
  | { readonly refused: string; readonly unreachable?: string }
  /** A fault of this machine. */
  | { readonly fault: string };

/** The checkout process's entry point as TypeScript: what runs when no bundle carries it. */
export const CHECKOUT_CHILD_SOURCE = fileURLToPath(new URL('./child.ts', import.meta.url));

/**
 * The name a bundle that ships the checkout process beside itself (the grading worker's Lambda
 * asset, the bundled runner) gives its file under, set by esbuild's `define`.
 */
export const CHECKOUT_CHILD_GLOBAL = 'GRADING_CHECKOUT_CHILD';
declare const GRADING_CHECKOUT_CHILD: string | undefined;

/** The require shim: some of isomorphic-git's dependencies are CommonJS and require Node's modules. */
export const CHECKOUT_CHILD_BANNER =
  "// The checkout process (shared/grading/checkout/child.ts), bundled.\nimport { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);";

/** child.ts and what it imports, bundled by esbuild into one ES module (throws without esbuild). */
export const checkoutChildBundle = (): Promise<Uint8Array> =>
  bundleForNode(CHECKOUT_CHILD_SOURCE, 'the checkout process', { banner: { js: CHECKOUT_CHILD_BANNER } });

/** The file the checkout process starts from: the bundle's companion file, else the TypeScript source. */
export function checkoutChildEntry(): string {
  if (typeof GRADING_CHECKOUT_CHILD === 'string') return fileURLToPath(new URL(`./${GRADING_CHECKOUT_CHILD}`, import.meta.url));
  return CHECKOUT_CHILD_SOURCE;
}

/**
 * The checkout process's whole environment: nothing of this process's (no AWS_* credentials, no
 * NODE_OPTIONS, no settings), so neither a flaw in the git client nor anything fetched can use
 * the worker's role.
 */
export function checkoutEnvironment(): Record<string, string> {
  // The repositories folder (a path, no secret) bounds a `file://` copy in the process too.
  const repositories = config('FILE_REPOSITORIES_DIR');
  return { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', ...(repositories ? { FILE_REPOSITORIES_DIR: repositories } : {}) };
}

/**
 * Runs the checkout of `input` (checkoutInto, in child.ts) in a Node process of its own,
 * with the environment of checkoutEnvironment and these limits: killed once its resident memory
 * passes `memoryBytes` (looked at every 25 ms; V8's heap is capped at half of it), or once it
 * has taken `timeMs`, or once `signal` aborts. Answers only once the process is gone, so nothing
 * writes into `input.root` afterwards. A limit or a refusal throws CheckoutError; an abort throws
 * the signal's reason, and a crash an Error (neither is the student's doing).
 */
export async function runCheckoutProcess(
  input: Omit<CheckoutChildInput, 'deadline'>,
  signal: AbortSignal | undefined,
  limits: CheckoutProcessLimits = checkoutProcessLimits,
): Promise<{ submission: string; commit?: string }> {
  const stoppedByCaller = () => (signal?.reason instanceof Error ? signal.reason : new Error('The checkout was stopped.'));
  if (signal?.aborted) throw stoppedByCaller();
  const heapMb = Math.max(16, Math.floor(limits.memoryBytes / (2 * 1024 * 1024)));
  const child = spawn(process.execPath, [`--max-old-space-size=${heapMb}`, checkoutChildEntry()], {
    env: checkoutEnvironment(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stopped: 'time' | 'memory' | 'caller' | undefined;
  const kill = (reason: 'time' | 'memory' | 'caller') => {
    stopped ??= reason;
    child.kill('SIGKILL');
  };
  const timer = setTimeout(() => kill('time'), limits.timeMs);
  const onAbort = () => kill('caller');
  signal?.addEventListener('abort', onAbort, { once: true });
  let looking = false;
  const memory = setInterval(() => {
    if (looking || child.pid === undefined) return;
    looking = true;
    residentBytes(child.pid)
      .then((bytes) => {
        if (bytes > limits.memoryBytes) kill('memory');
      })
      .finally(() => {
        looking = false;
      });
  }, MEMORY_LOOK_MS);

  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  let stderrBytes = 0;
  let stdoutBytes = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    stdoutBytes += chunk.length;
    if (stdoutBytes <= 1024 * 1024) stdout.push(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderrBytes < 64 * 1024) stderr.push(chunk);
    stderrBytes += chunk.length;
  });
  child.stdin.on('error', () => undefined); // a process that died early is reported on close
  const childInput: CheckoutChildInput = { ...input, deadline: Date.now() + limits.timeMs };
  child.stdin.end(JSON.stringify(childInput));

  const [code, exitSignal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on('error', (error) => reject(new Error(`The checkout process could not be started: ${error.message}`)));
    child.on('close', (exitCode, killedBy) => resolve([exitCode, killedBy]));
  }).finally(() => {
    clearTimeout(timer);
    clearInterval(memory);
    signal?.removeEventListener('abort', onAbort);
  });

  const errors = Buffer.concat(stderr).toString('utf8');
  if (stopped === 'caller') throw stoppedByCaller();
  if (stopped === 'time') throw new CheckoutError('fetching the repository took too long');
  // V8 ends a process whose heap passes --max-old-space-size with SIGABRT (or SIGTRAP).
  if (stopped === 'memory' || /out of memory/i.test(errors))
    throw new CheckoutError(`checking the repository out took more memory than the limit of ${formatBytes(limits.memoryBytes)}`);
  let output: CheckoutChildOutput | undefined;
  try {
    output = JSON.parse(Buffer.concat(stdout).toString('utf8')) as CheckoutChildOutput;
  } catch {
    output = undefined;
  }
  if (code !== 0 || !output)
    throw new Error(`The checkout process failed (${exitSignal ?? `exit code ${code}`}): ${errors.trim().slice(-2000)}`);
  if ('checkedOut' in output) return await checkedOutWithin(input.root, output.checkedOut);
  if ('refused' in output) {
    if (isCommitId(output.unreachable)) throw new UnreachableCommitError(output.unreachable);
    throw new CheckoutError(output.refused);
  }
  throw new Error(`The checkout failed: ${output.fault}`);
}

/**
 * What the process reports, once checked: a folder inside `root/files` and a full commit id. The
 * process holds nothing worth taking, but its answer is not taken on trust either.
 */
async function checkedOutWithin(root: string, checkedOut: { submission: string; commit?: string }) {
  const files = await realpath(join(root, 'files'));
  const submission = await realpath(String(checkedOut.submission)).catch(() => '');
  const inside = submission === files || submission.startsWith(`${files}${sep}`);
  if (!inside || (checkedOut.commit !== undefined && !isCommitId(checkedOut.commit)))
    throw new Error(`The checkout process answered something else than a checkout: ${JSON.stringify(checkedOut).slice(0, 500)}`);
  return { submission, ...(checkedOut.commit ? { commit: checkedOut.commit } : {}) };
}

/** The resident memory of process `pid` (0 once it is gone). */
async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kib = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  return kib ? Number(kib) * 1024 : 0;
}
