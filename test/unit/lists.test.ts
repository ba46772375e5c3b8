import { describe, expect, it } from 'vitest';
import { inGroups } from '#shared/lists.ts';

describe('inGroups', () => {
  it('runs at most a group at once, each group after the one before has ended', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await inGroups([1, 2, 3, 4, 5], 2, async (value) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 6 - value));
      done.push(value);
      running--;
    });
    expect(most).toBe(2);
    expect(done).toEqual([2, 1, 4, 3, 5]);
  });
});
