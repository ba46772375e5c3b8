/**
 * The checkout of a files version: its stored objects, read through the presigned GETs the worker
 * made (the runner holds no credentials), written into a fresh folder as the reference lays a
 * version out: each file by its name, each zip unpacked in its place (zip.ts's rules, within the
 * run's limits). Nothing of the submission runs here.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Refusal } from '#shared/errors.ts';
import { isZip, nameRefusal } from '#shared/files/rules.ts';
import { formatBytes } from './files.ts';
import type { RunRequest } from '../runner-protocol.ts';

/** Its failure, as checkout.ts's CheckoutFailure. */
type CheckoutFailure = { readonly status: 'checkout-failed'; readonly message: string };

const failed = (message: string): CheckoutFailure => ({
  status: 'checkout-failed',
  message: `Could not read the submitted files: ${message}`,
});

/** Reads `request.files` into a new folder inside `jobFolder`: the submission's folder, or why it could not be read. */
export async function fetchVersionFiles(
  request: RunRequest & { readonly files: NonNullable<RunRequest['files']> },
  signal: AbortSignal | undefined,
  jobFolder: string,
): Promise<{ submission: string } | CheckoutFailure> {
  const root = await mkdtemp(join(jobFolder, 'checkout-'));
  const files = join(root, 'files');
  await mkdir(files);
  const { maxRepositoryBytes: maxBytes, maxRepositoryFiles: maxFiles } = request.limits;
  let usedBytes = 0;
  let usedFiles = 0;
  for (const file of request.files) {
    const refusal = nameRefusal(file.name);
    if (refusal) return failed(refusal.message);
    const answer = await fetch(file.url, { signal: signal ?? AbortSignal.timeout(300_000) });
    if (!answer.ok) return failed(`${file.name} could not be read (HTTP ${answer.status})`);
    const bytes = Buffer.from(await answer.arrayBuffer());
    if (isZip(file.name, bytes)) {
      const { unpackZip } = await import('#shared/files/zip.ts');
      try {
        const unpacked = await unpackZip(file.name, bytes, files, { maxBytes, maxFiles, usedBytes, usedFiles });
        usedFiles += unpacked.length;
        usedBytes += unpacked.reduce((sum, entry) => sum + entry.size, 0);
      } catch (error) {
        if (error instanceof Refusal) return failed(error.message);
        if ((error as { code?: string }).code === 'EEXIST') return failed(`${file.name} holds a file sent beside it`);
        throw error;
      }
    } else {
      usedFiles += 1;
      usedBytes += bytes.length;
      if (usedFiles > maxFiles) return failed(`more than ${maxFiles} files`);
      if (usedBytes > maxBytes) return failed(`larger than the limit of ${formatBytes(maxBytes)}`);
      try {
        await writeFile(join(files, file.name), bytes, { flag: 'wx', mode: 0o644 });
      } catch (error) {
        if ((error as { code?: string }).code === 'EEXIST') return failed(`${file.name} is sent twice`);
        throw error;
      }
    }
  }
  return { submission: files };
}
