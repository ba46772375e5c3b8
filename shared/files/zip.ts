/**
 * Reading a submitted zip safely, as the reference unpacks it (into the version's folder, its own
 * folders kept), with what the reference does not check: no entry outside the folder, no links,
 * no devices, no encrypted entries, a bound on entries, and the unpacked size bounded both as the
 * archive declares it (before anything is inflated) and as it really inflates (a zip bomb lying
 * about its sizes is refused once it passes its declared size).
 */
import { mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { Refusal } from '#shared/errors.ts';
import {
  corruptZip,
  quotesInZip,
  tooManyFiles,
  zipEntryEncrypted,
  zipEntryLink,
  zipEntryName,
  zipEntryOutside,
  zipEntrySpecial,
  zipTooLarge,
  zipTooManyEntries,
} from './failures.ts';
import { MAX_NAME_BYTES, shown, type FileLimits } from './rules.ts';

/** One file a zip holds: its path inside the version's folder (segments joined by `/`) and its size. */
export interface ZipFile {
  readonly path: string;
  readonly size: number;
}

export interface ZipBudget extends FileLimits {
  /** Files and bytes the rest of the submission already takes (the limits are the submission's). */
  readonly usedFiles: number;
  readonly usedBytes: number;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
/** Unix, in the high byte of "version made by": only then do the external attributes hold a mode. */
const UNIX = 3;

/** Why one entry's path may not be unpacked, if it may not (the rule, for zipEntryName). */
function segmentRule(segment: string): string | undefined {
  if (segment === '') return 'an empty folder name';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(segment)) return 'a control character';
  if (Buffer.byteLength(segment, 'utf8') > MAX_NAME_BYTES) return `a name longer than ${MAX_NAME_BYTES} bytes`;
  if (segment === '.') return 'a . folder';
  if (segment.includes('\uFFFD')) return 'not valid UTF-8';
  return undefined;
}

/** The path an entry unpacks to (a folder's without its final `/`), or the refusal of its name. */
function entryPath(zipName: string, raw: string): { path: string; folder: boolean } {
  const entry = shown(raw);
  if (/['"\\<>]/.test(raw)) throw quotesInZip({ name: shown(zipName) });
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) throw zipEntryOutside({ name: shown(zipName), entry });
  const folder = raw.endsWith('/');
  const segments = (folder ? raw.slice(0, -1) : raw).split('/');
  if (segments.includes('..')) throw zipEntryOutside({ name: shown(zipName), entry });
  for (const segment of segments) {
    const rule = segmentRule(segment);
    if (rule) throw zipEntryName({ name: shown(zipName), entry, rule });
  }
  return { path: segments.join('/'), folder };
}

type Open = (options: yauzl.Options) => Promise<yauzl.ZipFile>;

const openBuffer =
  (bytes: Buffer): Open =>
  (options) =>
    new Promise((resolve, reject) => yauzl.fromBuffer(bytes, options, (error, zip) => (error ? reject(error) : resolve(zip))));

function readEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', reject);
    zip.readEntry();
  });
}

const openStream = (zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> =>
  new Promise((resolve, reject) => zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream))));

/**
 * Reads every entry of the zip `zipName` (its bytes `bytes`), checking it against `budget`, and
 * hands each file's content to `write` (when given) as it inflates. Answers the files it holds.
 * Every problem is a Refusal naming the zip (and the entry) and the rule.
 */
export async function readZip(
  zipName: string,
  bytes: Buffer,
  budget: ZipBudget,
  write?: (file: ZipFile, chunks: AsyncIterable<Buffer>) => Promise<void>,
): Promise<ZipFile[]> {
  const name = shown(zipName);
  const corrupt = () => corruptZip({ name });
  const maxEntries = 2 * budget.maxFiles + 16;
  let zip: yauzl.ZipFile;
  try {
    zip = await openBuffer(bytes)({ lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false });
  } catch {
    throw corrupt();
  }
  try {
    // The archive's own count, before any entry is read.
    if (zip.entryCount > maxEntries) throw zipTooManyEntries({ name, limit: maxEntries });
    const entries = await readEntries(zip).catch(() => {
      throw corrupt();
    });
    const files: { file: ZipFile; entry: yauzl.Entry }[] = [];
    let declared = budget.usedBytes;
    for (const entry of entries) {
      const raw = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
      const { path, folder } = entryPath(zipName, raw);
      const entryShown = shown(raw);
      const madeBy = entry.versionMadeBy >> 8;
      const mode = madeBy === UNIX ? (entry.externalFileAttributes >>> 16) & S_IFMT : 0;
      if (mode === S_IFLNK) throw zipEntryLink({ name, entry: entryShown });
      if (mode !== 0 && mode !== S_IFREG && mode !== S_IFDIR) throw zipEntrySpecial({ name, entry: entryShown });
      if ((mode === S_IFDIR) !== folder && mode !== 0) throw zipEntrySpecial({ name, entry: entryShown });
      if (folder) continue;
      if (entry.isEncrypted()) throw zipEntryEncrypted({ name, entry: entryShown });
      declared += entry.uncompressedSize;
      const count = budget.usedFiles + files.length + 1;
      if (count > budget.maxFiles) throw tooManyFiles({ limit: budget.maxFiles, count });
      if (declared > budget.maxBytes) {
        const kb = (bytes: number) => String(bytes / 1000);
        throw zipTooLarge({
          max: kb(budget.maxBytes),
          size: kb(declared),
          name,
          entry: entryShown,
          entry_size: kb(entry.uncompressedSize),
        });
      }
      files.push({ file: { path, size: entry.uncompressedSize }, entry });
    }
    // Then every file inflated, counted as it comes: yauzl stops an entry once it passes its declared size.
    for (const { file, entry } of files) {
      let stream: Readable;
      try {
        stream = await openStream(zip, entry);
      } catch {
        throw corrupt();
      }
      const counted = (async function* () {
        let inflated = 0;
        try {
          for await (const chunk of stream as AsyncIterable<Buffer>) {
            inflated += chunk.length;
            if (inflated > file.size) throw corrupt();
            yield chunk;
          }
        } catch (error) {
          if (error instanceof Refusal) throw error;
          throw corrupt();
        }
        if (inflated !== file.size) throw corrupt();
      })();
      if (write) await write(file, counted);
      else for await (const chunk of counted) void chunk;
    }
    return files.map(({ file }) => file);
  } finally {
    zip.close();
  }
}

/**
 * Unpacks the zip into `folder` as readZip checks it: folders made as needed, every file created
 * new (never through an existing file or link).
 */
export async function unpackZip(zipName: string, bytes: Buffer, folder: string, budget: ZipBudget): Promise<ZipFile[]> {
  return readZip(zipName, bytes, budget, async (file, chunks) => {
    const target = join(folder, ...file.path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    const handle = await open(target, 'wx', 0o644);
    try {
      for await (const chunk of chunks) await handle.write(chunk);
    } finally {
      await handle.close();
    }
  });
}
