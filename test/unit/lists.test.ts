import { describe, expect, it } from 'vitest';
import { inGroups } from '#shared/lists.ts';

describe('inGroups', () => {
  it('runs at most a group at once, each group after the one before has ended', async () => {
    let running = 0;
    let most = 0;
    const events: string[] = [];
    await inGroups([1, 2, 3, 4, 5], 2, async (value) => {
      running++;
      most = Math.max(most, running);
      events.push(`start ${value}`);
      // The first of each group ends last: a group's end waits for its slowest.
      await new Promise((resolve) => setTimeout(resolve, value % 2 === 1 ? 20 : 1));
      events.push(`end ${value}`);
      running--;
    });
    expect(most).toBe(2);
    const at = (event: string) => events.indexOf(event);
    for (const [ended, started] of [
      [[1, 2], 3],
      [[1, 2], 4],
      [[3, 4], 5],
    ] as const) {
      for (const value of ended) expect(at(`end ${value}`), events.join(', ')).toBeLessThan(at(`start ${started}`));
    }
    expect(events.filter((event) => event.startsWith('end'))).toHaveLength(5);
  });
});
