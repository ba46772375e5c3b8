import { fingerprint, type Fingerprints } from '#shared/similarity/fingerprints.ts';
import { similarityIndex, type SubmissionFingerprints } from '#shared/similarity/pairs.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { KEPT_PAIRS } from '#shared/similarity/limits.ts';
import { languageOf, tokenize } from '#shared/similarity/tokens.ts';
import { kb, median, ms, progress, type Row, type SectionResult } from './common.ts';

const SECTION = 'Similarity';
const LINES = 300;
const CLASSES = [100, 1000];
/** One submission in this many is a copy of another with its names and numbers changed. */
const COPY_EVERY = 20;
/** The pairs whose fragments are built, as a report's first page would. */
const DETAILED = 100;
const MAX_SHARE = 0.5;

/** A seeded generator, so every run measures the same class. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * A Python file of about `lines` lines written at random from a few kinds of statement (functions
 * with loops, conditions, calls, arithmetic, lists and dictionaries), so two students' files share
 * only the short runs that any two programs do.
 */
function pythonFile(next: () => number, lines: number, names: string[]): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const name = () => pick(names);
  const number = () => String(Math.floor(next() * 100));
  const value = (depth = 0): string => {
    if (depth > 2 || next() < 0.3) return next() < 0.6 ? name() : number();
    const inner = () => value(depth + 1);
    return pick([
      () => `${inner()} ${pick(['+', '-', '*', '//', '%'])} ${inner()}`,
      () => `${name()}(${inner()})`,
      () => `${name()}(${inner()}, ${inner()})`,
      () => `${name()}.${name()}(${inner()})`,
      () => `${name()}[${inner()}]`,
      () => `[${inner()}, ${inner()}]`,
      () => `(${inner()}, ${inner()})`,
      () => `{${inner()}: ${inner()}}`,
      () => `-${inner()}`,
      () => `not ${inner()}`,
      () => `${inner()} if ${inner()} else ${inner()}`,
      () => `[${name()} for ${name()} in ${inner()}]`,
      () => `[${name()} for ${name()} in ${inner()} if ${inner()}]`,
      () => `f"{${inner()}}"`,
      () => `lambda ${name()}: ${inner()}`,
      () => `${inner()} and ${inner()}`,
    ])();
  };
  const out: string[] = [];
  const statement = (indent: string, depth: number) => {
    const kind = Math.floor(next() * (depth > 2 ? 6 : 11));
    if (kind === 0) out.push(`${indent}${name()} = ${value()}`);
    else if (kind === 1) out.push(`${indent}${name()} += ${value()}`);
    else if (kind === 2) out.push(`${indent}${name()}, ${name()} = ${value()}, ${value()}`);
    else if (kind === 3) out.push(`${indent}${name()}.${name()}(${value()})`);
    else if (kind === 4) out.push(`${indent}print(${value()})`);
    else if (kind === 5) out.push(`${indent}${name()}[${value()}] = ${value()}`);
    else {
      out.push(
        [
          `${indent}if ${value()} ${pick(['<', '>', '==', '!=', 'in'])} ${value()}:`,
          `${indent}for ${name()} in ${value()}:`,
          `${indent}while ${value()}:`,
          `${indent}with open(${value()}) as ${name()}:`,
          `${indent}try:`,
        ][kind - 6]!,
      );
      const body = 1 + Math.floor(next() * 3);
      for (let line = 0; line < body; line++) statement(`${indent}    `, depth + 1);
      if (kind === 10) {
        out.push(`${indent}except ${pick(['ValueError', 'KeyError', 'IndexError'])}:`);
        statement(`${indent}    `, depth + 1);
      } else if (kind === 6 && next() < 0.4) {
        out.push(`${indent}else:`);
        statement(`${indent}    `, depth + 1);
      }
    }
  };
  while (out.length < lines) {
    out.push(`def ${name()}_${out.length}(${name()}, ${name()}):`);
    const body = 3 + Math.floor(next() * 8);
    for (let line = 0; line < body; line++) statement('    ', 1);
    out.push(`    return ${value()}`, '', '');
  }
  return out.slice(0, lines).join('\n');
}

/** A class of `size` students: most write their own file, one in COPY_EVERY copies an earlier one and renames its names. */
function classFiles(size: number): string[] {
  const next = random(size);
  const names = Array.from({ length: 60 }, (_, at) => `v${at}`);
  const files: string[] = [];
  for (let student = 0; student < size; student++) {
    if (student > 0 && student % COPY_EVERY === 0) {
      const copied = files[Math.floor(next() * student)]!;
      files.push(copied.replace(/\bv(\d+)\b/g, (_, digits: string) => `renamed_${digits}`).replace(/\b\d\b/g, '7'));
    } else files.push(pythonFile(next, LINES, names));
  }
  return files;
}

async function timed<T>(body: () => Promise<T> | T): Promise<{ result: T; ms: number }> {
  const start = performance.now();
  const result = await body();
  return { result, ms: performance.now() - start };
}

/** The most the heap grew while `body` ran (sampled every 5 ms), in MiB. */
async function peakHeap<T>(body: () => Promise<T>): Promise<{ result: T; mib: number }> {
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  try {
    const result = await body();
    return { result, mib: (Math.max(peak, process.memoryUsage().heapUsed) - before) / 2 ** 20 };
  } finally {
    clearInterval(sampler);
  }
}

/** The labelled tasks (test/fixtures/similarity/): an original, three disguised copies, four independent solutions each. */
const LABELLED = ['python-grades', 'java-brackets', 'c-wordcount'];
const COPIES = ['original', 'copy-renamed', 'copy-reordered', 'copy-deadcode'];

/** One labelled task ranked: precision at the number of copy pairs, and the worst rank of a copy's pair with its original. */
async function labelledQuality(task: string): Promise<{ precision: number; worst: number; pairs: number }> {
  const folder = new URL(`../test/fixtures/similarity/${task}/`, import.meta.url);
  const submissions: SubmissionFingerprints[] = [];
  for (const name of readdirSync(folder).sort()) {
    const tokens = await tokenize(readFileSync(new URL(name, folder), 'utf8'), languageOf(name));
    submissions.push({ id: name.replace(/\.[^.]+$/, ''), files: [{ path: name, fingerprints: fingerprint(tokens) }] });
  }
  const ranked = similarityIndex(submissions).pairs();
  const copyPairs = (COPIES.length * (COPIES.length - 1)) / 2;
  const isCopyPair = ({ left, right }: { left: string; right: string }) => COPIES.includes(left) && COPIES.includes(right);
  const worst = Math.max(
    ...COPIES.slice(1).map(
      (copy) => ranked.findIndex(({ left, right }) => [left, right].includes('original') && [left, right].includes(copy)) + 1,
    ),
  );
  return { precision: ranked.slice(0, copyPairs).filter(isCopyPair).length / copyPairs, worst, pairs: ranked.length };
}

/**
 * The similarity core on generated classes of 300-line Python files: tokenizing and
 * fingerprinting each file (once per version in the service), the fingerprints' size, and
 * ranking every pair of the class with the first page's fragments built. Informational: there is
 * no baseline to compare with.
 */
export async function measureSimilarity(): Promise<SectionResult> {
  const rows: Row[] = [];
  const row = (name: string, measured: string) =>
    rows.push({ section: SECTION, name, target: '—', baseline: '—', measured, met: undefined });
  for (const task of LABELLED) {
    const { precision, worst, pairs } = await labelledQuality(task);
    row(
      `labelled ${task}: precision at 6 (the pairs among an original and its 3 disguised copies), the worst copy's rank`,
      `${precision.toFixed(2)}; rank ${worst} of ${pairs} pairs`,
    );
  }
  const jobs: { size: number; ms: number; mib: number }[] = [];
  for (const size of CLASSES) {
    progress(`similarity: ${size} submissions of ${LINES} lines`);
    const files = classFiles(size);
    const perFile: number[] = [];
    const bytes: number[] = [];
    const submissions: SubmissionFingerprints[] = [];
    // The job's own work, as the summaries worker does it (shared/similarity/job.ts) without its reads and writes:
    // every file fingerprinted, every pair ranked, the KEPT_PAIRS kept with their fragments.
    const job = await peakHeap(() =>
      timed(async () => {
        for (const [at, text] of files.entries()) {
          const { result: fingerprints, ms: took } = await timed(async () => fingerprint(await tokenize(text, 'python')));
          perFile.push(took);
          bytes.push(Buffer.byteLength(JSON.stringify(fingerprints satisfies Fingerprints)));
          submissions.push({ id: `s${String(at).padStart(4, '0')}`, files: [{ path: 'main.py', fingerprints }] });
        }
        const index = similarityIndex(submissions);
        return index.pairs(KEPT_PAIRS).map(({ left, right }) => index.fragments(left, right));
      }),
    );
    jobs.push({ size, ms: job.result.ms, mib: job.mib });
    row(
      `${size} submissions: the job (fingerprint every file, rank, keep ${KEPT_PAIRS} pairs with fragments)`,
      `${ms(job.result.ms)}, heap +${job.mib.toFixed(0)} MiB`,
    );
    row(`${size} files: tokens and fingerprints of one file, median`, ms(median(perFile)));
    row(`${size} files: fingerprints of one file as JSON, median`, kb(median(bytes)));
    for (const share of [undefined, MAX_SHARE]) {
      const label = share === undefined ? 'every fingerprint' : `fingerprints in at most ${share * 100}% of submissions`;
      const { result, mib } = await peakHeap(() =>
        timed(() => {
          const index = similarityIndex(submissions, share === undefined ? {} : { maxSharePercentage: share });
          return { ranked: index.pairs(DETAILED) };
        }),
      );
      const above = result.result.ranked.filter(({ similarity }) => similarity > 0.9).length;
      row(
        `${size} submissions, ${label}: rank all pairs, fragments of the first ${DETAILED}`,
        `${ms(result.ms)}, heap +${mib.toFixed(0)} MiB; ${above} pairs above 0.9 (${Math.floor((size - 1) / COPY_EVERY)} copies made, some of copies)`,
      );
    }
  }
  const [small, large] = jobs;
  if (small && large)
    row(
      `the job's growth from ${small.size} to ${large.size} submissions (${large.size / small.size}× the submissions)`,
      `${(large.ms / small.ms).toFixed(1)}× the time, ${(large.mib / Math.max(small.mib, 1)).toFixed(1)}× the heap`,
    );
  return { rows, notes: [] };
}
