/**
 * What a file submission may hold: safe file names, and the gradeable's limits on files and bytes
 * within the operator's bounds. Pure rules; zips are read by zip.ts.
 */
import { config } from '#shared/config.ts';
import type { Refusal } from '#shared/errors.ts';
import {
  controlInName,
  dotName,
  duplicateName,
  emptyName,
  longName,
  noFiles,
  quotesInName,
  separatorInName,
  tooLarge,
  tooManyFiles,
} from './failures.ts';

/** The longest file name (in UTF-8 bytes) kept: what common file systems take. */
export const MAX_NAME_BYTES = 255;

/** Limits a gradeable sets on a submission (`submission_limits`), after the operator's bounds. */
export interface FileLimits {
  /** Files once zips are unpacked. */
  readonly maxFiles: number;
  /** Bytes once zips are unpacked. */
  readonly maxBytes: number;
}

/** A name shown in a message: as sent, unless it holds characters a message cannot show. */
export const shown = (name: string): string => {
  const cut = name.length > 100 ? `${name.slice(0, 100)}…` : name;
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f-\u009f]/.test(cut) ? JSON.stringify(cut) : cut;
};

/**
 * Why `name` is not a safe name for one file of a submission (a single path segment), if it is
 * not: empty, `.` or `..`, a separator, a control character, the reference's quotes, backslashes
 * and angle brackets, or longer than MAX_NAME_BYTES.
 */
export function nameRefusal(name: string): Refusal | undefined {
  if (name === '') return emptyName();
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return controlInName({ name: shown(name) });
  if (/['"\\<>]/.test(name)) return quotesInName({ name: shown(name) });
  if (name.includes('/')) return separatorInName({ name: shown(name) });
  if (name === '.' || name === '..') return dotName({ name });
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) return longName({ name: shown(name), limit: MAX_NAME_BYTES });
  return undefined;
}

/** The first refusal of a list of top-level names: each must be safe, and no two alike. */
export function namesRefusal(names: readonly string[]): Refusal | undefined {
  const seen = new Set<string>();
  for (const name of names) {
    const refusal = nameRefusal(name);
    if (refusal) return refusal;
    if (seen.has(name)) return duplicateName({ name: shown(name) });
    seen.add(name);
  }
  return undefined;
}

/**
 * Paths of the files a submission unpacks to, checked together: no path twice, and no file where
 * another path needs a folder (`a` and `a/b`).
 */
export function pathsRefusal(paths: readonly string[]): Refusal | undefined {
  const files = new Set<string>();
  const folders = new Set<string>();
  for (const path of paths) {
    if (files.has(path) || folders.has(path)) return duplicateName({ name: shown(path) });
    const segments = path.split('/');
    for (let end = 1; end < segments.length; end++) {
      const folder = segments.slice(0, end).join('/');
      if (files.has(folder)) return duplicateName({ name: shown(folder) });
      folders.add(folder);
    }
    files.add(path);
  }
  return undefined;
}

/** Sizes as the reference words them: kilobytes of 1000 bytes. */
const kb = (bytes: number) => String(bytes / 1000);

/** Why a submission of `count` files and `bytes` bytes (zips unpacked) is refused under `limits`, if it is. */
export function totalsRefusal(count: number, bytes: number, limits: FileLimits): Refusal | undefined {
  if (count === 0) return noFiles();
  if (count > limits.maxFiles) return tooManyFiles({ limit: limits.maxFiles, count });
  if (bytes > limits.maxBytes) return tooLarge({ max: kb(limits.maxBytes), size: kb(bytes) });
  return undefined;
}

/** The gradeable's `submission_limits`, each capped at the operator's bound (SUBMISSION_MAX_FILES, SUBMISSION_MAX_BYTES). */
export function fileLimits(
  asked: { readonly max_files?: number | undefined; readonly max_bytes?: number | undefined } | undefined,
  bounds: FileLimits,
): FileLimits {
  return {
    maxFiles: Math.min(asked?.max_files ?? bounds.maxFiles, bounds.maxFiles),
    maxBytes: Math.min(asked?.max_bytes ?? bounds.maxBytes, bounds.maxBytes),
  };
}

/** The reference unpacks a file that is a zip by both its name and its content; any other file is kept as it is. */
export function isZip(name: string, head: Uint8Array): boolean {
  if (!name.toLowerCase().endsWith('.zip') || head.length < 4) return false;
  // Local file header, or the end record of an empty archive.
  return head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6));
}

/** The operator's bounds (SUBMISSION_MAX_FILES, SUBMISSION_MAX_BYTES). */
export const operatorFileBounds = (): FileLimits => ({
  maxFiles: config('SUBMISSION_MAX_FILES'),
  maxBytes: config('SUBMISSION_MAX_BYTES'),
});
