import { readdir, readFile, statfs } from 'node:fs/promises';

/** What /proc/<pid>/status tells about one process, as seen from the harness's PID namespace. */
export interface ProcessStatus {
  /** How many PID namespaces deep the process is below the reader's (0: the reader's own). */
  readonly depth: number;
  readonly threads: number;
  /** Anonymous resident memory: what the process itself allocated. */
  readonly rssAnonKib: number;
}

/** Parses the fields of /proc/<pid>/status the harness needs. */
export function parseStatus(text: string): ProcessStatus {
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(text)?.[1]?.trim() ?? '';
  const nsPids = field('NSpid').split(/\s+/).filter(Boolean);
  return {
    depth: Math.max(0, nsPids.length - 1),
    threads: Number.parseInt(field('Threads'), 10) || 1,
    rssAnonKib: Number.parseInt(field('RssAnon'), 10) || 0,
  };
}

/** User plus system CPU seconds from /proc/<pid>/stat (clock ticks of 1/100 s, Linux's USER_HZ). */
export function parseCpuSeconds(stat: string): number {
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ")".
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) / 100 : 0;
}

export interface SandboxSample {
  /** Processes of nested sandboxes (every process at least one PID namespace below the harness). */
  readonly pids: readonly number[];
  /** Their threads: what RLIMIT_NPROC counts. */
  readonly tasks: number;
  readonly memoryKib: number;
  /** The most CPU time any one of them has used. */
  readonly maxCpuSeconds: number;
}

/** The processes running in nested sandboxes right now (read from the harness's own /proc). */
export async function sampleNested(): Promise<SandboxSample> {
  const pids: number[] = [];
  let tasks = 0;
  let memoryKib = 0;
  let maxCpuSeconds = 0;
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const [status, stat] = await Promise.all([
      readFile(`/proc/${name}/status`, 'utf8').catch(() => undefined),
      readFile(`/proc/${name}/stat`, 'utf8').catch(() => undefined),
    ]);
    if (status === undefined) continue; // gone meanwhile
    const parsed = parseStatus(status);
    if (parsed.depth < 1) continue;
    pids.push(Number(name));
    tasks += parsed.threads;
    memoryKib += parsed.rssAnonKib;
    if (stat !== undefined) maxCpuSeconds = Math.max(maxCpuSeconds, parseCpuSeconds(stat));
  }
  return { pids, tasks, memoryKib, maxCpuSeconds };
}

/** Bytes in use on the file system holding `path` (the test case's tmpfs). */
export async function usedBytes(path: string): Promise<number> {
  const info = await statfs(path);
  return (info.blocks - info.bfree) * info.bsize;
}

/** Kills every process of the nested sandboxes; true when there was none left. */
export async function killNested(): Promise<boolean> {
  const { pids } = await sampleNested();
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  return pids.length === 0;
}

/**
 * Returns once no process of a nested sandbox is left, killing what remains; throws if some
 * survive `timeoutMs` (a fault of the machine: the job must not go on).
 */
export async function awaitNoNested(timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await killNested())) {
    if (Date.now() > deadline) throw new Error('Processes of a finished test case could not be killed');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
