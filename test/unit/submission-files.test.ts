import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Refusal } from '#shared/errors.ts';
import { fileLimits, isZip, nameRefusal, namesRefusal, pathsRefusal, totalsRefusal } from '#shared/files/rules.ts';
import { readZip, unpackZip } from '#shared/files/zip.ts';
import { makeZip } from '../support/zip.ts';

const limits = { maxFiles: 10, maxBytes: 10_000 };
const budget = { ...limits, usedFiles: 0, usedBytes: 0 };

async function refusalOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Refusal) return error.message;
    throw error;
  }
  throw new Error('not refused');
}

describe('file names', () => {
  it('keeps ordinary names', () => {
    for (const name of ['main.cpp', 'README', '.hidden', 'a b.txt', 'été.py', 'x'.repeat(255)]) expect(nameRefusal(name)).toBeUndefined();
  });

  it('refuses separators, traversal, control characters, the reference’s characters and long names, naming the file and the rule', () => {
    expect(nameRefusal('../evil.sh')?.message).toBe(
      'The file name ../evil.sh contains a folder separator: send the file itself, or a .zip to keep folders.',
    );
    expect(nameRefusal('a/b')?.message).toContain('folder separator');
    expect(nameRefusal('..')?.message).toBe('The file name .. is not allowed: . and .. name folders.');
    expect(nameRefusal('.')?.message).toContain('. and .. name folders');
    expect(nameRefusal('a\nb')?.message).toBe('The file name "a\\nb" contains a control character.');
    expect(nameRefusal('nul\u0000.c')?.message).toContain('control character');
    expect(nameRefusal('a\\b')?.message).toBe('Error: You may not use quotes, backslashes or angle brackets in your file name a\\b.');
    expect(nameRefusal('<x>')?.message).toContain('angle brackets');
    expect(nameRefusal('x'.repeat(256))?.message).toContain('is longer than 255 bytes');
    expect(nameRefusal('é'.repeat(128))?.message).toContain('longer than 255 bytes');
    expect(nameRefusal('')?.message).toBe('A file was sent without a name.');
  });

  it('refuses a name sent twice', () => {
    expect(namesRefusal(['a.c', 'b.c', 'a.c'])?.message).toBe('The file a.c is sent twice: file names must differ.');
    expect(namesRefusal(['a.c', 'A.c'])).toBeUndefined();
  });

  it('refuses paths that collide once unpacked', () => {
    expect(pathsRefusal(['src/a.c', 'src/a.c'])?.message).toContain('src/a.c is sent twice');
    expect(pathsRefusal(['src', 'src/a.c'])?.message).toContain('src is sent twice');
    expect(pathsRefusal(['src/a.c', 'src'])?.message).toContain('src is sent twice');
    expect(pathsRefusal(['src/a.c', 'src/b.c', 'main.c'])).toBeUndefined();
  });
});

describe('limits', () => {
  it('caps the gradeable’s limits at the operator’s bounds', () => {
    expect(fileLimits(undefined, limits)).toEqual(limits);
    expect(fileLimits({ max_files: 3 }, limits)).toEqual({ maxFiles: 3, maxBytes: 10_000 });
    expect(fileLimits({ max_files: 30, max_bytes: 99_999 }, limits)).toEqual(limits);
  });

  it('refuses an empty submission, too many files and too many bytes', () => {
    expect(totalsRefusal(0, 0, limits)?.message).toBe('No files to be submitted.');
    expect(totalsRefusal(11, 1, limits)?.message).toBe('This gradeable takes at most 10 files; the submission has 11.');
    expect(totalsRefusal(1, 10_001, limits)?.message).toBe(
      'File(s) uploaded too large.  Maximum size is 10 kb. Uploaded file(s) was 10.001 kb.',
    );
    expect(totalsRefusal(10, 10_000, limits)).toBeUndefined();
  });

  it('takes a file as a zip by its name and its content, as the reference does', () => {
    const zip = makeZip([{ name: 'a.c', content: 'int x;' }]);
    expect(isZip('work.zip', zip)).toBe(true);
    expect(isZip('WORK.ZIP', zip)).toBe(true);
    expect(isZip('work.bin', zip)).toBe(false);
    expect(isZip('notes.zip', Buffer.from('plain text'))).toBe(false);
    expect(isZip('empty.zip', makeZip([]))).toBe(true);
  });
});

describe('zips', () => {
  it('unpacks files and folders into the folder', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'zip-test-'));
    try {
      const zip = makeZip([
        { name: 'src/', mode: 0o040755 },
        { name: 'src/main.cpp', content: 'int main() { return 0; }\n', mode: 0o100644 },
        { name: 'README', content: 'x'.repeat(500) },
      ]);
      const files = await unpackZip('work.zip', zip, folder, budget);
      expect(files).toEqual([
        { path: 'src/main.cpp', size: 25 },
        { path: 'README', size: 500 },
      ]);
      expect(await readFile(join(folder, 'src', 'main.cpp'), 'utf8')).toBe('int main() { return 0; }\n');
      expect(await readFile(join(folder, 'README'), 'utf8')).toBe('x'.repeat(500));
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('refuses entries outside the folder, links, devices, encrypted entries and bad names', async () => {
    const refused = (entries: Parameters<typeof makeZip>[0]) => refusalOf(readZip('work.zip', makeZip(entries), budget));
    expect(await refused([{ name: '../evil.sh', content: 'x' }])).toBe(
      'The file work.zip holds ../evil.sh, which lies outside its folder.',
    );
    expect(await refused([{ name: 'a/../../evil.sh', content: 'x' }])).toContain('lies outside its folder');
    expect(await refused([{ name: '/etc/passwd', content: 'x' }])).toContain('/etc/passwd, which lies outside its folder');
    expect(await refused([{ name: 'C:/x', content: 'x' }])).toContain('lies outside its folder');
    expect(await refused([{ name: 'link', content: '/etc/passwd', mode: 0o120777 }])).toBe(
      'The file work.zip holds link, a link: links are not accepted.',
    );
    expect(await refused([{ name: 'dev', content: '', mode: 0o020644 }])).toBe(
      'The file work.zip holds dev, which is not a regular file or folder.',
    );
    expect(await refused([{ name: 'fifo', content: '', mode: 0o010644 }])).toContain('not a regular file or folder');
    expect(await refused([{ name: 'secret.c', content: 'x', encrypted: true }])).toBe(
      'The file work.zip holds secret.c, which is encrypted.',
    );
    expect(await refused([{ name: 'a\\b.c', content: 'x' }])).toBe(
      'Error: You may not use quotes, backslashes or angle brackets in your filename for files inside work.zip.',
    );
    expect(await refused([{ name: 'a\u0001.c', content: 'x' }])).toBe(
      'The file work.zip holds an entry whose name "a\\u0001.c" is not allowed: a control character.',
    );
    expect(await refused([{ name: 'a//b.c', content: 'x' }])).toContain('an empty folder name');
  });

  it('refuses a zip bomb by its declared size before inflating it, and one lying about its size as it inflates', async () => {
    const zeros = Buffer.alloc(5_000_000);
    const honest = makeZip([{ name: 'bomb.txt', content: zeros }]);
    expect(honest.length).toBeLessThan(10_000);
    expect(await refusalOf(readZip('bomb.zip', honest, budget))).toBe(
      'File(s) uploaded too large.  Maximum size is 10 kb. Uploaded file(s) was 5000 kb: the file bomb.zip holds bomb.txt, which unpacks to 5000 kb.',
    );
    const lying = makeZip([{ name: 'bomb.txt', content: zeros, declaredSize: 100 }]);
    expect(await refusalOf(readZip('bomb.zip', lying, budget))).toBe('Corrupted ZIP file for bomb.zip.');
  });

  it('counts the zip’s files and bytes with the rest of the submission', async () => {
    const zip = makeZip([
      { name: 'a', content: 'x' },
      { name: 'b', content: 'y' },
    ]);
    expect(await refusalOf(readZip('w.zip', zip, { ...budget, usedFiles: 9 }))).toBe(
      'This gradeable takes at most 10 files; the submission has 11.',
    );
    expect(await refusalOf(readZip('w.zip', zip, { ...budget, usedBytes: 9_999 }))).toContain('too large');
    const many = makeZip(Array.from({ length: 40 }, (_, index) => ({ name: `d${index}/`, mode: 0o040755 })));
    expect(await refusalOf(readZip('w.zip', many, budget))).toBe('The file w.zip holds more than 36 entries.');
  });

  it('refuses what is not a zip at all', async () => {
    expect(await refusalOf(readZip('w.zip', Buffer.from('PK\u0003\u0004 and then nothing'), budget))).toBe('Corrupted ZIP file for w.zip.');
  });
});
