/**
 * Which submissions of a class are alike: from each submission's fingerprints (its files'), the
 * pairs ranked most similar first, and for one pair the fragments they share, file by file.
 *
 * A submission is compared as Dolos compares a file, its files' fingerprints one after the other
 * (a fragment never runs from one file into the next). Fingerprints of the starter code, and those
 * found in more than `maxSharePercentage` of the submissions (boilerplate everyone writes), are
 * ignored, as Dolos's ignored file and `maxFingerprintPercentage` do.
 *
 * `similarity` is Dolos's: the fingerprints of either side whose hash the other side has, over
 * both sides' fingerprints less their ignored ones. Dolos subtracts each ignored hash once however
 * often it occurs (and the left side's count for both sides); we subtract every ignored
 * fingerprint, so two identical submissions are 1 however often a line of boilerplate repeats. `longest_fragment` is the longest run of shared
 * fingerprints in tokens, `total_overlap` the tokens inside shared fragments, each on the side
 * where it is smaller. The fragments are dolos-core's `Pair.buildFragments`.
 *
 * The work: building the index is linear in the fingerprints (F); ranking adds, for every kept
 * hash of a submission, one step per later submission that has it (at most
 * `maxSharePercentage · n`, so at most F · maxSharePercentage · n steps in all, far fewer when
 * classmates share little) and a sort of the pairs found (at most n²/2); the fragments are built
 * only for the pairs asked for, each in about the product of the two sides' shared fingerprints.
 */
import { File, Pair, Range, Region, SharedFingerprint, TokenizedFile, type FileEntry, type Fragment } from '@dodona/dolos-core';
import { fingerprintList, type Fingerprint, type Fingerprints } from './fingerprints.ts';

export interface SubmissionFingerprints {
  id: string;
  files: readonly { path: string; fingerprints: Fingerprints }[];
}

export interface PairOptions {
  /** The starter code's files: their fingerprints count for no pair. */
  starterCode?: readonly Fingerprints[];
  /** A fingerprint in more than this share of the submissions (0–1) counts for no pair. Unset: none is left out for being common. */
  maxSharePercentage?: number;
}

export interface RankedPair {
  left: string;
  right: string;
  /** 0–1. */
  similarity: number;
  /** Tokens. */
  longest_fragment: number;
  /** Tokens. */
  total_overlap: number;
}

export interface FragmentSide {
  path: string;
  /** From 1, both included. */
  first_line: number;
  last_line: number;
  tokens: number;
}

export interface SharedFragment {
  left: FragmentSide;
  right: FragmentSide;
}

/** A fragment's side with its file and tokens (the first and last, both included), for counting overlaps. */
interface PlacedSide {
  file: number;
  from: number;
  to: number;
  shown: FragmentSide;
}

interface Placed {
  left: PlacedSide;
  right: PlacedSide;
}

/** One fingerprint of a submission, where it lies. */
interface Occurrence extends Fingerprint {
  file: number;
  /** Its place among the submission's fingerprints; one more between two files, so no fragment runs across. */
  index: number;
}

interface Indexed {
  id: string;
  /** Its place in the class, for a pair's key. */
  position: number;
  paths: string[];
  k: number;
  occurrences: Occurrence[];
  /** How many times each hash occurs in it. */
  counts: Map<number, number>;
  /** How many of its fingerprints are ignored. */
  ignored: number;
}

export interface SimilarityIndex {
  /**
   * Every pair that shares a kept fingerprint, most similar first (then by ids), the first `limit`
   * of them with their fragment lengths; with `keep`, only the pairs it keeps.
   */
  pairs(limit?: number, keep?: (left: string, right: string) => boolean): RankedPair[];
  /** The fragments the two submissions share, in the left one's order. */
  fragments(left: string, right: string): SharedFragment[];
}

/** The index of a class's submissions (see the module's comment). */
export function similarityIndex(submissions: readonly SubmissionFingerprints[], options: PairOptions = {}): SimilarityIndex {
  const indexed = submissions.map(indexSubmission);
  const byId = new Map(indexed.map((submission) => [submission.id, submission]));
  if (byId.size !== indexed.length) throw new Error('Two submissions have the same id');

  const holders = new Map<number, Indexed[]>();
  for (const submission of indexed) {
    for (const hash of submission.counts.keys()) {
      let list = holders.get(hash);
      if (list === undefined) holders.set(hash, (list = []));
      list.push(submission);
    }
  }
  const ignored = new Set<number>();
  for (const fingerprints of options.starterCode ?? []) {
    for (const { hash } of fingerprintList(fingerprints)) ignored.add(hash);
  }
  if (options.maxSharePercentage !== undefined) {
    const most = options.maxSharePercentage * indexed.length;
    for (const [hash, list] of holders) if (list.length > most) ignored.add(hash);
  }
  for (const submission of indexed) {
    for (const [hash, count] of submission.counts) if (ignored.has(hash)) submission.ignored += count;
  }

  const fragmentsOf = (left: Indexed, right: Indexed): Fragment[] => {
    const leftFile = new TokenizedFile(new File(left.id, ''), [], []);
    const rightFile = new TokenizedFile(new File(right.id, ''), [], []);
    const leftEntry = entry(leftFile);
    const rightEntry = entry(rightFile);
    const shared = new Map<number, SharedFingerprint>();
    for (const [file, side, submission] of [
      [leftFile, leftEntry, left],
      [rightFile, rightEntry, right],
    ] as const) {
      for (const occurrence of submission.occurrences) {
        side.kgrams.push(new Range(occurrence.start, occurrence.start + submission.k - 1));
        const { hash } = occurrence;
        if (ignored.has(hash) || !left.counts.has(hash) || !right.counts.has(hash)) continue;
        let fingerprint = shared.get(hash);
        if (fingerprint === undefined) shared.set(hash, (fingerprint = new SharedFingerprint(hash, null)));
        fingerprint.add({
          file,
          side: {
            index: occurrence.index,
            start: occurrence.start,
            stop: occurrence.start + submission.k - 1,
            location: new Region(occurrence.firstLine, 0, occurrence.lastLine, 0),
            data: null,
          },
        });
        side.shared.add(fingerprint);
      }
    }
    return new Pair(leftEntry, rightEntry).buildFragments();
  };

  const sides = (left: Indexed, right: Indexed, fragment: Fragment): Placed => {
    const side = (submission: Indexed, which: 'left' | 'right'): PlacedSide => {
      let from = Number.POSITIVE_INFINITY;
      let to = 0;
      for (const paired of fragment.pairs) {
        from = Math.min(from, paired[which].start);
        to = Math.max(to, paired[which].stop);
      }
      const selection = which === 'left' ? fragment.leftSelection : fragment.rightSelection;
      const kgrams = which === 'left' ? fragment.leftkgrams : fragment.rightkgrams;
      const file = fileAt(submission, kgrams.from);
      return {
        file,
        from,
        to,
        shown: {
          path: submission.paths[file] ?? '',
          first_line: selection.startRow,
          last_line: selection.endRow,
          tokens: to - from + 1,
        },
      };
    };
    return { left: side(left, 'left'), right: side(right, 'right') };
  };

  return {
    pairs(limit = Number.POSITIVE_INFINITY, keep = () => true) {
      const ranked: { left: Indexed; right: Indexed; similarity: number }[] = [];
      const covered = new Float64Array(indexed.length);
      const touched: number[] = [];
      for (const left of indexed) {
        for (const [hash, leftCount] of left.counts) {
          if (ignored.has(hash)) continue;
          const list = holders.get(hash) ?? [];
          for (let at = list.length - 1; at >= 0; at--) {
            const right = list[at];
            if (right === undefined || right.position <= left.position) break;
            const sofar = covered[right.position] ?? 0;
            if (sofar === 0) touched.push(right.position);
            covered[right.position] = sofar + leftCount + (right.counts.get(hash) ?? 0);
          }
        }
        for (const position of touched) {
          const right = indexed[position];
          if (right === undefined) continue;
          if (!keep(left.id, right.id)) {
            covered[position] = 0;
            continue;
          }
          const denominator = left.occurrences.length + right.occurrences.length - left.ignored - right.ignored;
          ranked.push({ left, right, similarity: denominator > 0 ? (covered[position] ?? 0) / denominator : 0 });
          covered[position] = 0;
        }
        touched.length = 0;
      }
      ranked.sort(
        (one, other) =>
          other.similarity - one.similarity || compareIds(one.left.id, other.left.id) || compareIds(one.right.id, other.right.id),
      );
      return ranked.slice(0, limit).map(({ left, right, similarity }) => {
        const fragments = fragmentsOf(left, right).map((fragment) => sides(left, right, fragment));
        return {
          left: left.id,
          right: right.id,
          similarity,
          longest_fragment: fragments.reduce(
            (longest, { left: one, right: other }) => Math.max(longest, Math.min(one.shown.tokens, other.shown.tokens)),
            0,
          ),
          total_overlap: Math.min(coveredTokens(fragments, 'left'), coveredTokens(fragments, 'right')),
        };
      });
    },

    fragments(leftId, rightId) {
      const left = byId.get(leftId);
      const right = byId.get(rightId);
      if (left === undefined || right === undefined) throw new Error(`No submission ${left === undefined ? leftId : rightId}`);
      return fragmentsOf(left, right).map((fragment) => {
        const placed = sides(left, right, fragment);
        return { left: placed.left.shown, right: placed.right.shown };
      });
    },
  };
}

const compareIds = (one: string, other: string) => (one < other ? -1 : one > other ? 1 : 0);

function entry(file: TokenizedFile): FileEntry {
  return { file, kgrams: [], shared: new Set(), ignored: new Set(), isIgnored: false };
}

function indexSubmission({ id, files }: SubmissionFingerprints, position: number): Indexed {
  const occurrences: Occurrence[] = [];
  const counts = new Map<number, number>();
  let index = 0;
  let k = 0;
  files.forEach(({ fingerprints }, file) => {
    if (k !== 0 && fingerprints.k !== k) throw new Error(`The files of ${id} were fingerprinted with different k-gram lengths`);
    k = fingerprints.k;
    for (const fingerprint of fingerprintList(fingerprints)) {
      occurrences.push({ ...fingerprint, file, index: index++ });
      counts.set(fingerprint.hash, (counts.get(fingerprint.hash) ?? 0) + 1);
    }
    index++;
  });
  return { id, position, paths: files.map(({ path }) => path), k, occurrences, counts, ignored: 0 };
}

/** The file of the fingerprint at `index` (indexes grow through the files in order). */
function fileAt(submission: Indexed, index: number): number {
  let low = 0;
  let high = submission.occurrences.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((submission.occurrences[middle]?.index ?? index) <= index) low = middle;
    else high = middle - 1;
  }
  return submission.occurrences[low]?.file ?? 0;
}

/** The tokens of one side inside some fragment, tokens of overlapping fragments counted once. */
function coveredTokens(fragments: readonly Placed[], which: 'left' | 'right'): number {
  const spans = fragments.map((fragment) => fragment[which]).sort((one, other) => one.file - other.file || one.from - other.from);
  let total = 0;
  let file = -1;
  let reached = -1;
  for (const { file: at, from, to } of spans) {
    if (at !== file) {
      file = at;
      reached = -1;
    }
    if (to > reached) {
      total += to - Math.max(from, reached + 1) + 1;
      reached = to;
    }
  }
  return total;
}
