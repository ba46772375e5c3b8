import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Region, WinnowFilter } from '@dodona/dolos-core';
import { fingerprint, fingerprintList, KGRAM_LENGTH, WINDOW } from '#shared/similarity/fingerprints.ts';
import { tokenize, type Token } from '#shared/similarity/tokens.ts';

const folder = new URL('../fixtures/similarity/python-grades/', import.meta.url);
const original = readFileSync(new URL('original.py', folder), 'utf8');

/** Every Python file of the labelled set one after the other, cut to 300 lines: a long student file. */
const threeHundredLines = readdirSync(folder)
  .sort()
  .map((name) => readFileSync(new URL(name, folder), 'utf8'))
  .join('\n')
  .split('\n')
  .slice(0, 300)
  .join('\n');

describe("a file's fingerprints", () => {
  it("are dolos-core's winnowed k-grams of the tokens, with Dolos's k = 23 and window 17", async () => {
    const tokens = await tokenize(original, 'python');
    const list = fingerprintList(fingerprint(tokens));
    const dolos = new WinnowFilter(23, 17).fingerprints(tokens.map(({ token }) => token));
    expect(KGRAM_LENGTH).toBe(23);
    expect(WINDOW).toBe(17);
    expect(list.map(({ hash, start }) => [hash, start])).toEqual(dolos.map(({ hash, start }) => [hash, start]));
    expect(list.length).toBeGreaterThan(tokens.length / 17);
  });

  it('name the lines of the code each k-gram stands for (from 1): its tokens but the closing ones', async () => {
    const tokens = await tokenize(original, 'python');
    const list = fingerprintList(fingerprint(tokens));
    for (const { start, firstLine, lastLine } of list) {
      const opening = tokens.slice(start, start + KGRAM_LENGTH).filter(({ token }) => token !== ')');
      expect(firstLine).toBe(Math.min(...opening.map(({ region }) => region.startRow)) + 1);
      const end = opening.map(({ region }) => (region.endCol === 0 && region.endRow > region.startRow ? region.endRow : region.endRow + 1));
      expect(lastLine).toBe(Math.max(...end));
    }
  });

  it("place the file's last k-gram on its last lines, where Dolos's first-and-last-token region starts at line 1", async () => {
    const tokens = await tokenize(original, 'python');
    const list = fingerprintList(fingerprint(tokens));
    const lines = original.trimEnd().split('\n').length;
    const last = list.at(-1)!;
    expect(last.lastLine).toBe(lines);
    expect(last.firstLine).toBeGreaterThan(lines - 5);
    expect(Region.merge(tokens[last.start]!.region, tokens[last.start + KGRAM_LENGTH - 1]!.region).startRow).toBe(0);
  });

  it('share a fingerprint with any copied run of k + window - 1 tokens, wherever it lands', async () => {
    const tokens = await tokenize(original, 'python');
    const run = tokens.slice(200, 200 + KGRAM_LENGTH + WINDOW - 1);
    const filler = (count: number, token: string): Token[] => Array.from({ length: count }, () => ({ token, region: run[0]!.region }));
    const hashes = new Set(fingerprintList(fingerprint(tokens)).map(({ hash }) => hash));
    for (const before of [0, 5, 31]) {
      const elsewhere = [...filler(before, 'x'), ...run, ...filler(40, 'y')];
      expect(fingerprintList(fingerprint(elsewhere)).some(({ hash }) => hashes.has(hash))).toBe(true);
    }
  });

  it('are a plain object of numbers that survives JSON, for storing beside a version', async () => {
    const stored = fingerprint(await tokenize(original, 'python'));
    expect(JSON.parse(JSON.stringify(stored))).toEqual(stored);
    expect(stored.data.every((value) => Number.isSafeInteger(value))).toBe(true);
  });

  it('take under 12 KB of JSON for a 300-line Python file', async () => {
    const tokens = await tokenize(threeHundredLines, 'python');
    const bytes = Buffer.byteLength(JSON.stringify(fingerprint(tokens)));
    expect(tokens.length).toBeGreaterThan(4000);
    expect(bytes).toBeLessThan(12 * 1024);
  });

  it('are none for a file shorter than a k-gram', async () => {
    const stored = fingerprint(await tokenize('x = 1\n', 'python'));
    expect(stored.data).toEqual([]);
    expect(fingerprintList(stored)).toEqual([]);
  });
});
