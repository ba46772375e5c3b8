import { describe, expect, it } from 'vitest';
import { REFUSAL_MEMORY_MS, refusalKey, refusalMemory } from '#shared/http/middleware/refusals.ts';

describe('refusal memory', () => {
  it('remembers a refusal for a while, per route, course and caller, until forgotten', () => {
    let now = 1_000_000;
    const memory = refusalMemory(() => now);
    const key = refusalKey('GET /api/{semester}/{course}/gradebook', { semester: 'f26', course: 'cs1' }, 'ann');
    expect(memory.recently(key)).toBe(false);
    memory.remember(key);
    expect(memory.recently(key)).toBe(true);
    expect(memory.recently(refusalKey('GET /api/{semester}/{course}/gradebook', { semester: 'f26', course: 'cs2' }, 'ann'))).toBe(false);
    expect(memory.recently(refusalKey('GET /api/{semester}/{course}/gradebook', { semester: 'f26', course: 'cs1' }, 'bob'))).toBe(false);
    now += REFUSAL_MEMORY_MS - 1;
    expect(memory.recently(key)).toBe(true);
    now += 1;
    expect(memory.recently(key)).toBe(false);
    memory.remember(key);
    memory.forget(key);
    expect(memory.recently(key)).toBe(false);
  });

  it('keys cannot be confused across their parts', () => {
    const a = refusalKey('GET /x', { semester: 'f26', course: 'a' }, 'b');
    const b = refusalKey('GET /x', { semester: 'f26', course: 'a\nb' }, '');
    expect(a).not.toBe(b);
  });
});
