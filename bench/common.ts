import { readFileSync, readdirSync } from 'node:fs';

/** What every measurement module returns: rows of the one results table, and notes on misses. */
export interface Row {
  readonly section: string;
  readonly name: string;
  readonly target: string;
  readonly baseline: string;
  readonly measured: string;
  /** undefined: informational, no target. */
  readonly met: boolean | undefined;
}

export interface SectionResult {
  readonly rows: Row[];
  /** Why a target was missed and what it would take (Markdown paragraphs or list items). */
  readonly notes: string[];
}

/** Progress for the person waiting; the table itself goes to stdout. */
export const progress = (message: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: p99 of 200 samples is the second largest.
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export const median = (values: readonly number[]) => quantile(values, 0.5);

export const ms = (value: number) =>
  value >= 100 ? `${value.toFixed(0)} ms` : value >= 10 ? `${value.toFixed(1)} ms` : `${value.toFixed(2)} ms`;
export const ratio = (value: number) => `${value.toFixed(2)}×`;
export const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

export const sleep = (milliseconds: number) => new Promise((done) => setTimeout(done, milliseconds));

/**
 * CPU time a process has used so far, in milliseconds, summed over its threads (Linux /proc; clock
 * ticks of 10 ms); undefined where there is no /proc or the process is gone.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    return readdirSync(`/proc/${pid}/task`).reduce((sum, thread) => {
      try {
        const fields = readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
        return sum + (Number(fields[11]) + Number(fields[12])) * 10;
      } catch {
        return sum; // a thread that ended meanwhile
      }
    }, 0);
  } catch {
    return undefined;
  }
}

/** This process's CPU time so far, in milliseconds. */
export const ownCpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
