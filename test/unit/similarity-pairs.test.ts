import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { File, FingerprintIndex, TokenizedFile } from '@dodona/dolos-core';
import { fingerprint } from '#shared/similarity/fingerprints.ts';
import { similarityIndex, type SubmissionFingerprints } from '#shared/similarity/pairs.ts';
import { languageOf, tokenize } from '#shared/similarity/tokens.ts';

const folder = new URL('../fixtures/similarity/python-grades/', import.meta.url);
const names = readdirSync(folder).sort();
const textOf = (name: string) => readFileSync(new URL(name, folder), 'utf8');
const idOf = (name: string) => name.replace(/\.py$/, '');

async function submission(id: string, files: Record<string, string>): Promise<SubmissionFingerprints> {
  const fingerprinted = [];
  for (const [path, text] of Object.entries(files)) {
    fingerprinted.push({ path, fingerprints: fingerprint(await tokenize(text, languageOf(path))) });
  }
  return { id, files: fingerprinted };
}

/** dolos-core's own index over the same tokens, one file a submission. */
async function dolosIndex(texts: Record<string, string>, starter?: string) {
  const index = new FingerprintIndex(23, 17);
  const tokenized = async (path: string, text: string) => {
    const tokens = await tokenize(text, 'python');
    return new TokenizedFile(
      new File(path, text),
      tokens.map(({ token }) => token),
      tokens.map(({ region }) => region),
    );
  };
  // Dolos adds the starter code after the submissions: only then are its fingerprints ignored in them.
  index.addFiles(await Promise.all(Object.entries(texts).map(([path, text]) => tokenized(path, text))));
  if (starter !== undefined) index.addIgnoredFile(await tokenized('starter.py', starter));
  return index;
}

const starter = [
  'import sys',
  '',
  '',
  'def read_lines(stream):',
  '    """Every line of the stream without its end, blank lines left out."""',
  '    result = []',
  '    for line in stream:',
  '        line = line.rstrip("\\n")',
  '        if line.strip() != "":',
  '            result.append(line)',
  '    return result',
  '',
  '',
].join('\n');

describe("a class's pairs, as Dolos ranks them", () => {
  it("give every pair of the labelled Python class dolos-core's similarity over the same tokens", async () => {
    const texts = Object.fromEntries(names.map((name) => [idOf(name), textOf(name)]));
    const ours = similarityIndex(await Promise.all(names.map((name) => submission(idOf(name), { [name]: textOf(name) }))));
    const dolos = (await dolosIndex(texts)).allPairs();
    const ranked = ours.pairs();
    const shared = dolos.filter((pair) => pair.overlap > 0);
    expect(ranked).toHaveLength(shared.length);
    for (const pair of shared) {
      const [left, right] = [pair.leftFile.path, pair.rightFile.path].sort();
      const found = ranked.find((mine) => mine.left === left && mine.right === right);
      expect(found?.similarity).toBeCloseTo(pair.similarity, 12);
    }
  });

  it("give dolos-core's covered and total counts with the starter code ignored, each ignored fingerprint subtracted where it occurs", async () => {
    const texts = Object.fromEntries(names.map((name) => [idOf(name), starter + textOf(name)]));
    const ours = similarityIndex(await Promise.all(names.map((name) => submission(idOf(name), { [name]: starter + textOf(name) }))), {
      starterCode: [(await submission('starter', { 'starter.py': starter })).files[0]!.fingerprints],
    }).pairs();
    const index = await dolosIndex(texts, starter);
    const entries = new Map(index.entries().map((entry) => [entry.file, entry]));
    const ignoredIn = (file: TokenizedFile) =>
      [...entries.get(file)!.ignored].reduce((sum, shared) => sum + shared.occurrencesOf(file).length, 0);
    const compared = index.allPairs().filter((one) => one.overlap > 0);
    expect(compared.length).toBeGreaterThan(10);
    for (const pair of compared) {
      const [left, right] = [pair.leftFile.path, pair.rightFile.path].sort();
      const expected =
        (pair.leftCovered + pair.rightCovered) / (pair.leftTotal + pair.rightTotal - ignoredIn(pair.leftFile) - ignoredIn(pair.rightFile));
      expect(ours.find((mine) => mine.left === left && mine.right === right)?.similarity).toBeCloseTo(expected, 12);
    }
  });

  it("give one pair dolos-core's fragments: the same matches, in the same order, with the same tokens", async () => {
    const [left, right] = ['original.py', 'copy-reordered.py'];
    const ours = similarityIndex([
      await submission('original', { [left]: textOf(left) }),
      await submission('copy', { [right]: textOf(right) }),
    ]).fragments('original', 'copy');
    const index = await dolosIndex({ [left]: textOf(left), [right]: textOf(right) });
    const [leftFile, rightFile] = index.entries().map(({ file }) => file);
    const theirs = index.getPair(leftFile!, rightFile!).buildFragments();
    expect(ours.map(({ left: one, right: other }) => [one.tokens, other.tokens])).toEqual(
      theirs.map((fragment) => [
        fragment.pairs.at(-1)!.left.stop - fragment.pairs[0]!.left.start + 1,
        fragment.pairs.at(-1)!.right.stop - fragment.pairs[0]!.right.start + 1,
      ]),
    );
    expect(ours.length).toBeGreaterThan(5);
    expect(ours.every(({ left: one, right: other }) => one.path === left && other.path === right)).toBe(true);
  });
});

describe('what a pair leaves out', () => {
  const independent = async () => [
    await submission('a', { 'a.py': starter + textOf('student-a.py') }),
    await submission('c', { 'c.py': starter + textOf('student-c.py') }),
  ];

  it('counts nothing of the starter code', async () => {
    const starterPrints = (await submission('starter', { 'starter.py': starter })).files[0]!.fingerprints;
    const without = similarityIndex(await independent()).pairs();
    const withStarter = similarityIndex(await independent(), { starterCode: [starterPrints] }).pairs();
    expect(without[0]!.similarity).toBeGreaterThan(0.1);
    expect(withStarter.every(({ similarity }) => similarity < without[0]!.similarity / 2)).toBe(true);
  });

  it('counts nothing found in more than the boilerplate share of the submissions', async () => {
    const class_ = [
      ...(await independent()),
      await submission('d', { 'd.py': starter + textOf('student-d.py') }),
      await submission('b', { 'b.py': starter + textOf('student-b.py') }),
    ];
    const every = similarityIndex(class_).pairs();
    const common = similarityIndex(class_, { maxSharePercentage: 0.75 }).pairs();
    expect(every).toHaveLength(6);
    expect(Math.min(...every.map(({ similarity }) => similarity))).toBeGreaterThan(0.05);
    for (const pair of common) {
      const before = every.find(({ left, right }) => left === pair.left && right === pair.right)!;
      expect(pair.similarity).toBeLessThan(before.similarity / 2);
    }
  });

  it('gives two identical submissions 1, however often an ignored line repeats in them', async () => {
    const repeated = `${starter}${'total = total + read_lines(sys.stdin)[0].count("x")\n'.repeat(12)}${textOf('original.py')}`;
    const boilerplate = (await submission('starter', { 'starter.py': repeated.slice(0, repeated.indexOf('import sys', 10)) })).files[0]!;
    const pairs = similarityIndex([await submission('one', { 'a.py': repeated }), await submission('two', { 'a.py': repeated })], {
      starterCode: [boilerplate.fingerprints],
    }).pairs();
    expect(pairs.map(({ similarity }) => similarity)).toEqual([1]);
  });

  it('lists no pair that shares no fingerprint', async () => {
    const pairs = similarityIndex([
      await submission('python', { 'a.py': textOf('original.py') }),
      await submission('words', { 'a.txt': 'nothing in common here at all, not one run of words '.repeat(10) }),
    ]).pairs();
    expect(pairs).toEqual([]);
  });
});

describe('pairs and fragments', () => {
  it('rank most similar first, with the first `limit` pairs the same as in the whole ranking', async () => {
    const index = similarityIndex(await Promise.all(names.map((name) => submission(idOf(name), { [name]: textOf(name) }))));
    const all = index.pairs();
    expect(all.map(({ similarity }) => similarity)).toEqual(all.map(({ similarity }) => similarity).sort((a, b) => b - a));
    expect(index.pairs(3)).toEqual(all.slice(0, 3));
    for (const pair of all) {
      expect(pair.similarity).toBeGreaterThan(0);
      expect(pair.similarity).toBeLessThanOrEqual(1);
      expect(pair.longest_fragment).toBeLessThanOrEqual(pair.total_overlap);
    }
  });

  it('place each fragment in its file, never across two files of a submission', async () => {
    const lines = textOf('original.py').split('\n');
    const halves = { 'stats.py': lines.slice(0, 27).join('\n'), 'report.py': lines.slice(27).join('\n') };
    const index = similarityIndex([await submission('split', halves), await submission('whole', { 'main.py': textOf('original.py') })]);
    const fragments = index.fragments('split', 'whole');
    expect(new Set(fragments.map(({ left }) => left.path))).toEqual(new Set(['stats.py', 'report.py']));
    for (const { left, right } of fragments) {
      expect(right.path).toBe('main.py');
      expect(left.last_line).toBeLessThanOrEqual(halves[left.path as keyof typeof halves].split('\n').length);
    }
    const longest = (path: string) =>
      fragments.filter(({ left }) => left.path === path).sort((one, other) => other.left.tokens - one.left.tokens)[0]!;
    expect(longest('stats.py').right.first_line).toBe(longest('stats.py').left.first_line);
    expect(longest('report.py').right.first_line).toBe(longest('report.py').left.first_line + 27);
    expect(longest('report.py').right.last_line).toBe(longest('report.py').left.last_line + 27);
    const [pair] = index.pairs();
    expect(pair!.longest_fragment).toBeLessThan(pair!.total_overlap);
  });
});
