/** Splits a list into pieces of at most `size`, in order. Pure. */
export function chunks<T>(list: readonly T[], size: number): T[][] {
  const pieces: T[][] = [];
  for (let start = 0; start < list.length; start += size) pieces.push(list.slice(start, start + size));
  return pieces;
}

/** Runs `run` on every value, `size` at once: each group once the one before it has ended. */
export async function inGroups<T>(values: readonly T[], size: number, run: (value: T) => Promise<unknown>): Promise<void> {
  for (const group of chunks(values, size)) await Promise.all(group.map(run));
}
