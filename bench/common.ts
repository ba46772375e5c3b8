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
