import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '#shared/similarity/fingerprints.ts';
import { similarityIndex } from '#shared/similarity/pairs.ts';
import { languageOf, tokenize } from '#shared/similarity/tokens.ts';

/**
 * Each task's folder holds an original solution, three disguised copies of it (renamed identifiers
 * and changed literals; comments, spacing and functions reordered; dead code inserted) and four
 * solutions written independently, as different students would.
 */
const COPIES = ['original', 'copy-renamed', 'copy-reordered', 'copy-deadcode'];
const COPY_PAIRS = (COPIES.length * (COPIES.length - 1)) / 2;

async function rankClass(task: string) {
  const folder = new URL(`../fixtures/similarity/${task}/`, import.meta.url);
  const submissions = [];
  for (const name of readdirSync(folder).sort()) {
    const tokens = await tokenize(readFileSync(new URL(name, folder), 'utf8'), languageOf(name));
    submissions.push({ id: name.replace(/\.[^.]+$/, ''), files: [{ path: name, fingerprints: fingerprint(tokens) }] });
  }
  expect(submissions.map(({ id }) => id).filter((id) => id.startsWith('student-'))).toHaveLength(4);
  return similarityIndex(submissions).pairs();
}

const isCopyPair = ({ left, right }: { left: string; right: string }) => COPIES.includes(left) && COPIES.includes(right);

describe('a class with three disguised copies among independent solutions', () => {
  it.each([
    ['python-grades', 3],
    ['java-brackets', 5],
    ['c-wordcount', 5],
  ])(
    `%s: the ${COPY_PAIRS} pairs among the original and its copies rank first (precision at ${COPY_PAIRS} is 1), the worst copy's pair with the original ranking %i`,
    async (task, worstRank) => {
      const ranked = await rankClass(task);
      const top = ranked.slice(0, COPY_PAIRS);
      expect(top.filter(isCopyPair)).toHaveLength(COPY_PAIRS);
      const worstCopy = Math.max(
        ...COPIES.slice(1).map((copy) =>
          ranked.findIndex(({ left, right }) => [left, right].includes('original') && [left, right].includes(copy)),
        ),
      );
      expect(worstCopy + 1).toBe(worstRank);
      const firstIndependent = ranked.find((pair) => !isCopyPair(pair))!;
      expect(top.at(-1)!.similarity).toBeGreaterThan(2 * firstIndependent.similarity);
    },
  );
});
