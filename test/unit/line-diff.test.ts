import { describe, expect, it } from 'vitest';
import { lineDifferences, MAX_DIFFERENCES } from '#shared/grading/harness/line-diff.ts';

const run = (start: number, count: number) => ({ start, count });

describe('the lines in which an output differs from the expected one', () => {
  it('pairs a changed line on each side', () => {
    expect(lineDifferences('a\nb\nc\n', 'a\nB\nc\n')).toEqual({
      differences: [{ expected: run(2, 1), actual: run(2, 1) }],
      truncated: false,
    });
  });

  it('names lines missing from the output, and extra lines in it, by where they would be on the other side', () => {
    expect(lineDifferences('a\nb\nc\n', 'a\nc\n').differences).toEqual([{ expected: run(2, 1), actual: run(2, 0) }]);
    expect(lineDifferences('a\nc\n', 'a\nb\nb2\nc\n').differences).toEqual([{ expected: run(2, 0), actual: run(2, 2) }]);
  });

  it('lists separate differences apart, in order', () => {
    expect(lineDifferences('1\n2\n3\n4\n5\n', 'x\n2\n3\n4\ny\n').differences).toEqual([
      { expected: run(1, 1), actual: run(1, 1) },
      { expected: run(5, 1), actual: run(5, 1) },
    ]);
  });

  it('counts a missing last end of line as a difference', () => {
    expect(lineDifferences('Hello\n', 'Hello').differences).toEqual([{ expected: run(1, 1), actual: run(1, 1) }]);
  });

  it('finds no difference in equal outputs', () => {
    expect(lineDifferences('same\n', 'same\n')).toEqual({ differences: [], truncated: false });
  });

  it(`lists at most ${MAX_DIFFERENCES} differences, and says when it left some out`, () => {
    const expected = Array.from({ length: 300 }, (_, line) => `${line}\n`).join('');
    const actual = Array.from({ length: 300 }, (_, line) => (line % 2 === 0 ? `${line}\n` : `other ${line}\n`)).join('');
    const shown = lineDifferences(expected, actual);
    expect(shown.differences).toHaveLength(MAX_DIFFERENCES);
    expect(shown.truncated).toBe(true);
    expect(shown.differences[0]).toEqual({ expected: run(2, 1), actual: run(2, 1) });
  });

  it('gives up listing, saying so, when the outputs have almost nothing in common', () => {
    const expected = Array.from({ length: 3000 }, (_, line) => `e${line}\n`).join('');
    const actual = Array.from({ length: 3000 }, (_, line) => `a${line}\n`).join('');
    expect(lineDifferences(expected, actual)).toEqual({ differences: [], truncated: true });
  });
});
