import { diffLines } from 'diff';

/** A run of lines of one side: the first (1-based) and how many (0: none, the other side's lines come before `start`). */
export interface LineRun {
  readonly start: number;
  readonly count: number;
}

/** Where the expected and the actual output differ: each run of expected lines and the actual lines in its place. */
export interface DiffViewer {
  readonly differences: readonly { readonly expected: LineRun; readonly actual: LineRun }[];
  /** Some differences are not listed: more than MAX_DIFFERENCES, or too many to work out. */
  readonly truncated: boolean;
}

/** The most differences listed. */
export const MAX_DIFFERENCES = 100;

/** Past this many lines added and removed, finding the shortest edit costs too much: the differences are not listed. */
const MAX_EDIT_LENGTH = 2_000;

/**
 * Pure. The lines in which `actual` differs from `expected`, both as shown (a line keeps its end
 * of line, so a missing last newline differs too): the shortest edit from one to the other, its
 * neighbouring removals and additions paired into one difference.
 */
export function lineDifferences(expected: string, actual: string): DiffViewer {
  const changes = diffLines(expected, actual, { maxEditLength: MAX_EDIT_LENGTH });
  if (!changes) return { differences: [], truncated: true };
  const differences: { expected: LineRun; actual: LineRun }[] = [];
  let open: { expected: { start: number; count: number }; actual: { start: number; count: number } } | undefined;
  let expectedLine = 1;
  let actualLine = 1;
  for (const change of changes) {
    const lines = change.count;
    if (!change.added && !change.removed) {
      if (open) differences.push(open);
      open = undefined;
      expectedLine += lines;
      actualLine += lines;
      continue;
    }
    open ??= { expected: { start: expectedLine, count: 0 }, actual: { start: actualLine, count: 0 } };
    if (change.removed) {
      open.expected.count += lines;
      expectedLine += lines;
    } else {
      open.actual.count += lines;
      actualLine += lines;
    }
  }
  if (open) differences.push(open);
  return { differences: differences.slice(0, MAX_DIFFERENCES), truncated: differences.length > MAX_DIFFERENCES };
}
