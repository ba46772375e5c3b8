import { describe, expect, it } from 'vitest';
import { CONTENTION_MEMORY_MS, ticketContention } from '#shared/queue/contention.ts';

describe('ticket contention', () => {
  it('is recent for a while after a collision, and not before any or once the queue is quiet again', () => {
    let now = 5_000;
    const contention = ticketContention(() => now);
    expect(contention.recent()).toBe(false);
    contention.noteCollision();
    expect(contention.recent()).toBe(true);
    now += CONTENTION_MEMORY_MS - 1;
    expect(contention.recent()).toBe(true);
    now += 1;
    expect(contention.recent()).toBe(false);
    // Each collision extends it.
    contention.noteCollision();
    now += CONTENTION_MEMORY_MS / 2;
    contention.noteCollision();
    now += CONTENTION_MEMORY_MS / 2;
    expect(contention.recent()).toBe(true);
  });
});
