/**
 * The files of one recorded commit of a repository, for code that reads a version's files outside
 * a grading (a similarity run): checked out exactly as a grading checks the version out
 * (checkoutRepository: in a process of its own without credentials, through the address guard,
 * within the repository's limits), the submission's subdirectory read file by file, then removed.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultRunLimits } from '../runner-protocol.ts';
import { checkoutRepository } from './checkout.ts';

/** One regular file of the commit: its path inside the subdirectory (`/`-separated) and its bytes. */
export interface CommitFile {
  readonly path: string;
  readonly bytes: Buffer;
}

/**
 * The regular files of `commit` in `repository`'s `subdirectory`, in their paths' order, each at
 * most `maxFileBytes` (larger ones are left out, as are symbolic links: a link is never followed
 * out of the checkout). A repository that cannot be read, or a commit no longer in it, throws
 * CheckoutError (UnreachableCommitError) saying why.
 */
export async function commitFiles(
  source: { readonly url: string; readonly subdirectory: string; readonly commit: string; readonly allowedHosts: readonly string[] },
  maxFileBytes: number,
): Promise<CommitFile[]> {
  const checkout = await checkoutRepository({
    jobId: `commit-${source.commit}`,
    repository: { url: source.url, subdirectory: source.subdirectory },
    commit: source.commit,
    testCases: [],
    limits: defaultRunLimits,
    allowedHosts: source.allowedHosts,
    // Nothing of the repository runs: the checkout only fetches and writes its files.
    sandbox: 'bwrap',
  });
  try {
    const files: CommitFile[] = [];
    const readFolder = async (folder: string, prefix: string): Promise<void> => {
      const entries = (await readdir(folder, { withFileTypes: true })).sort((one, other) => (one.name < other.name ? -1 : 1));
      for (const entry of entries) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) await readFolder(path, `${prefix}${entry.name}/`);
        else if (entry.isFile() && (await stat(path)).size <= maxFileBytes)
          files.push({ path: `${prefix}${entry.name}`, bytes: await readFile(path) });
      }
    };
    await readFolder(checkout.submission, '');
    return files;
  } finally {
    await checkout.remove();
  }
}
