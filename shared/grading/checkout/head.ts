import fs from 'node:fs';
import git from 'isomorphic-git';
import { CheckoutError, isCommitId } from './error.ts';
import { guardedHttp } from './http.ts';
import { describeGitError, localGitdirInside, localRepository, repositoryAddress } from './checkout.ts';

/** How long reading a repository's head may take: a submission waits for it, well within its own time limit. */
export const HEAD_TIME_LIMIT_MS = 10_000;
/** The server's answer listing its refs; a head needs a few hundred bytes, a server listing every ref (protocol v1) more. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const EMPTY = 'the repository is empty (it has no commits on its default branch)';

/**
 * The commit a checkout of `address` takes now: the head of its default branch, read like
 * `git ls-remote` through the checkout's own client and address guard (allowedHosts), within
 * `timeLimitMs`. None for a `file://` folder that is not a git repository (it has no history).
 * Problems the student can act on throw CheckoutError: no such repository, an unreachable or
 * refused address, an empty repository, too slow a server.
 */
export async function resolveHead(
  address: string,
  options: { readonly allowedHosts: readonly string[]; readonly timeLimitMs?: number },
): Promise<string | undefined> {
  const url = repositoryAddress(address);
  const commit = url.protocol === 'file:' ? await localHead(url) : await remoteHead(url, options.allowedHosts, options.timeLimitMs);
  // Versions and jobs record SHA-1 ids only (the worker refuses anything else).
  if (commit !== undefined && !isCommitId(commit))
    throw new CheckoutError(`the repository's head ${JSON.stringify(commit)} is not a SHA-1 commit id`);
  return commit;
}

async function remoteHead(url: URL, allowedHosts: readonly string[], timeLimitMs = HEAD_TIME_LIMIT_MS): Promise<string> {
  const signal = AbortSignal.timeout(timeLimitMs);
  const http = guardedHttp({ allowedHosts, maxBytes: MAX_ANSWER_BYTES, signal });
  const tooSlow = () => new CheckoutError('reading the repository took too long');
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(tooSlow());
    signal.addEventListener('abort', () => reject(tooSlow()), { once: true });
  });
  aborted.catch(() => undefined);
  let refs: Awaited<ReturnType<typeof git.listServerRefs>>;
  try {
    // Protocol v2 asks for HEAD alone; a server speaking only v1 lists every ref instead.
    refs = await Promise.race([git.listServerRefs({ http, url: url.href, prefix: 'HEAD' }), aborted]);
  } catch (error) {
    if (signal.aborted) throw tooSlow();
    // isomorphic-git wraps errors raised while reading a response; the client remembers its own.
    throw new CheckoutError(describeGitError(http.failure() ?? error));
  } finally {
    http.release();
  }
  const failure = http.failure();
  if (failure) throw failure;
  const head = refs.find((ref) => ref.ref === 'HEAD');
  if (!head) throw new CheckoutError(EMPTY);
  return head.oid;
}

/** A local repository's HEAD (local demo only); none for a plain folder. */
async function localHead(url: URL): Promise<string | undefined> {
  const gitdir = await localGitdirInside(await localRepository(url));
  if (!gitdir) return undefined;
  return git.resolveRef({ fs, gitdir, ref: 'HEAD' }).catch(() => {
    throw new CheckoutError(EMPTY);
  });
}
