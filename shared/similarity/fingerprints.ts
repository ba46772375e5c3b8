/**
 * A file's tokens → its winnowed fingerprints: every run of `k` consecutive tokens (a k-gram) is
 * hashed, and of every `window` consecutive hashes the smallest is kept (dolos-core's
 * `WinnowFilter`, the winnowing of Schleimer, Wilkerson and Aiken), so any copied run of at least
 * `k + window - 1` tokens shares a fingerprint with its original. Each fingerprint keeps where its
 * k-gram lies: its first token and the lines of the code it stands for.
 *
 * They are kept as a plain object of numbers, small enough to store beside a version and keep
 * across terms: four numbers a fingerprint, the start and lines written as the step from the
 * previous fingerprint's (mostly one or two digits).
 */
import { Region, WinnowFilter } from '@dodona/dolos-core';
import type { Token } from './tokens.ts';

/** Dolos's defaults: k-grams of 23 tokens, one fingerprint kept in every window of 17. */
export const KGRAM_LENGTH = 23;
export const WINDOW = 17;

export interface Fingerprints {
  k: number;
  window: number;
  /** How many tokens the file has. */
  tokens: number;
  /**
   * Four numbers a fingerprint, in the file's order: the k-gram's hash, then the step from the
   * previous fingerprint's first token, first line and last line to this one's (the first
   * fingerprint's from 0). Lines count from 1.
   */
  data: number[];
}

/** One fingerprint, as `fingerprintList` reads it back. */
export interface Fingerprint {
  hash: number;
  /** The k-gram's first token (from 0); it ends at `start + k - 1`. */
  start: number;
  firstLine: number;
  lastLine: number;
}

export interface FingerprintOptions {
  k?: number;
  window?: number;
}

/** The fingerprints of one file's tokens. */
export function fingerprint(tokens: readonly Token[], options: FingerprintOptions = {}): Fingerprints {
  const k = options.k ?? KGRAM_LENGTH;
  const window = options.window ?? WINDOW;
  const filter = new WinnowFilter(k, window);
  const data: number[] = [];
  let previous = { start: 0, firstLine: 0, lastLine: 0 };
  for (const { hash, start, stop } of filter.fingerprints(tokens.map(({ token }) => token))) {
    const region = linesOf(tokens, start, stop);
    const here = { start, firstLine: region.startRow + 1, lastLine: lastLineOf(region) };
    data.push(hash, here.start - previous.start, here.firstLine - previous.firstLine, here.lastLine - previous.lastLine);
    previous = here;
  }
  return { k, window, tokens: tokens.length, data };
}

/**
 * The code a k-gram stands for: from the earliest start to the latest end of its tokens other than
 * `)`. A `)` carries the region of the node it closes, which for the last tokens of a file is the
 * whole file's start (Dolos merges the first and last token's regions, and so would place a
 * k-gram at a file's end from line 1).
 */
function linesOf(tokens: readonly Token[], start: number, stop: number): Region {
  let lines: Region | undefined;
  for (const { token, region } of tokens.slice(start, stop + 1)) {
    if (token !== ')') lines = lines === undefined ? region : Region.merge(lines, region);
  }
  const first = tokens[start];
  const last = tokens[stop];
  if (lines !== undefined) return lines;
  if (first === undefined || last === undefined) throw new Error(`The winnowing named tokens ${start}–${stop} of ${tokens.length}`);
  return Region.merge(first.region, last.region);
}

/** A region that ends at the start of a line does not take that line. */
function lastLineOf(region: Region): number {
  return region.endCol === 0 && region.endRow > region.startRow ? region.endRow : region.endRow + 1;
}

/** The fingerprints, one object each. */
export function fingerprintList({ data }: Fingerprints): Fingerprint[] {
  const list: Fingerprint[] = [];
  let start = 0;
  let firstLine = 0;
  let lastLine = 0;
  for (let at = 0; at + 3 < data.length; at += 4) {
    const [hash = 0, startStep = 0, firstLineStep = 0, lastLineStep = 0] = data.slice(at, at + 4);
    start += startStep;
    firstLine += firstLineStep;
    lastLine += lastLineStep;
    list.push({ hash, start, firstLine, lastLine });
  }
  return list;
}
