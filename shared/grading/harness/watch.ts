import { readdir, readFile, statfs } from 'node:fs/promises';

/** What /proc/<pid>/status tells about one process. */
export interface ProcessStatus {
  readonly ppid: number;
  readonly threads: number;
  /** Anonymous resident memory: what the process itself allocated. */
  readonly rssAnonKib: number;
}

export interface ProcessInfo extends ProcessStatus {
  readonly pid: number;
  readonly cpuSeconds: number;
}

/** Parses the fields of /proc/<pid>/status the harness needs. */
export function parseStatus(text: string): ProcessStatus {
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(text)?.[1]?.trim() ?? '';
  return {
    ppid: Number.parseInt(field('PPid'), 10) || 0,
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

/**
 * The processes descending from `root` (itself excluded). A test case's sandbox is such a tree:
 * orphans are adopted by the sandbox's own init, never by anything outside it.
 */
export function descendantsOf<T extends { pid: number; ppid: number }>(processes: readonly T[], root: number): T[] {
  const children = new Map<number, T[]>();
  for (const process of processes) children.set(process.ppid, [...(children.get(process.ppid) ?? []), process]);
  const found: T[] = [];
  const queue = [root];
  const seen = new Set<number>([root]);
  for (let parent = queue.shift(); parent !== undefined; parent = queue.shift()) {
    for (const child of children.get(parent) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** Processes read at once: a busy machine's /proc must not run the harness out of file descriptors. */
const READ_AT_ONCE = 32;

/** A process that ended while its files were read; any other failure (too many open files) fails the sample. */
const gone = (error: unknown) => ['ENOENT', 'ESRCH'].includes((error as NodeJS.ErrnoException).code ?? '');
const readIfAlive = (path: string) =>
  readFile(path, 'utf8').catch((error: unknown) => {
    if (gone(error)) return undefined;
    throw error;
  });

/** Every process this harness can see, from its /proc. */
export async function readProcesses(): Promise<ProcessInfo[]> {
  const names = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const found: ProcessInfo[] = [];
  for (let start = 0; start < names.length; start += READ_AT_ONCE) {
    const read = await Promise.all(
      names.slice(start, start + READ_AT_ONCE).map(async (name) => {
        const [status, stat] = await Promise.all([readIfAlive(`/proc/${name}/status`), readIfAlive(`/proc/${name}/stat`)]);
        if (status === undefined) return undefined; // gone meanwhile
        return { pid: Number(name), ...parseStatus(status), cpuSeconds: stat === undefined ? 0 : parseCpuSeconds(stat) };
      }),
    );
    for (const process of read) if (process) found.push(process);
  }
  return found;
}

export interface CaseSample {
  readonly pids: readonly number[];
  /** Threads of all processes: what RLIMIT_NPROC counts. */
  readonly tasks: number;
  readonly memoryKib: number;
  /** The most CPU time any one process has used. */
  readonly maxCpuSeconds: number;
}

/** The processes of the sandbox started as `root` (the test case's bubblewrap). */
export async function sampleCase(root: number): Promise<CaseSample> {
  const processes = descendantsOf(await readProcesses(), root);
  return {
    pids: processes.map((process) => process.pid),
    tasks: processes.reduce((sum, process) => sum + process.threads, 0),
    memoryKib: processes.reduce((sum, process) => sum + process.rssAnonKib, 0),
    maxCpuSeconds: Math.max(0, ...processes.map((process) => process.cpuSeconds)),
  };
}

/**
 * Kills every process of the sandbox started as `root`, but not `root` itself: bubblewrap then
 * sees its sandbox's init (the command) die, which happens only once every process in that PID
 * namespace is gone, and exits. Returns how many it signalled.
 */
export async function killCase(root: number): Promise<number> {
  const { pids } = await sampleCase(root);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  return pids.length;
}

/** Bytes in use on the file system holding `path`. */
export async function usedBytes(path: string): Promise<number> {
  const info = await statfs(path);
  return (info.blocks - info.bfree) * info.bsize;
}
