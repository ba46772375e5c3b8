import fs from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, realpath, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import git, { TREE, type WalkerEntry } from 'isomorphic-git';
import { config } from '#shared/config.ts';
import { FILE_REPOSITORIES_OFF, fileRepositoryFolder } from '#shared/gradeables/repository.ts';
import type { RunRequest } from '../runner-protocol.ts';
import { CheckoutError, isCommitId, UnreachableCommitError } from './error.ts';
import { guardedHttp } from './http.ts';
import { copyTree, formatBytes, removeFolder } from './files.ts';
import { checkoutProcessLimits, runCheckoutProcess, type CheckoutProcessLimits } from './process.ts';

export { CheckoutError, isCommitId, UnreachableCommitError } from './error.ts';
export { CHECKOUT_MEMORY_LIMIT_BYTES, CHECKOUT_TIME_LIMIT_MS, type CheckoutProcessLimits } from './process.ts';

/**
 * What the objects of a fetched pack may add up to once inflated: the repository's limit on its
 * files, plus 1 KiB per file it may have for its folders (trees) and its commit.
 */
export const packLimit = (limits: RunRequest['limits']): number => limits.maxRepositoryBytes + 1024 * limits.maxRepositoryFiles;

export interface Checkout {
  /** The submission's folder (the repository's subdirectory) inside the checkout. */
  readonly submission: string;
  /**
   * The commit whose files these are: `request.commit` when given, else the head of the default
   * branch as fetched. None for a `file://` folder that is not a git repository (no history).
   */
  readonly commit?: string;
  /** Removes everything the checkout wrote. */
  readonly remove: () => Promise<void>;
}

export interface CheckoutFailure {
  /** `commit-unreachable`: the commit asked for is gone from the repository (UnreachableCommitError). */
  readonly status: 'checkout-failed' | 'commit-unreachable';
  readonly message: string;
}

/**
 * The checkout both sandboxes start from: the submission's folder and its commit, or the result
 * the student sees when the repository (or the version's commit) could not be fetched (only
 * faults of this machine throw).
 */
export async function checkoutOrFailure(
  request: RunRequest,
  signal: AbortSignal | undefined,
  jobFolder: string,
  limits: CheckoutProcessLimits = checkoutProcessLimits,
): Promise<{ submission: string; commit?: string } | CheckoutFailure> {
  if (request.files) return (await import('./objects.ts')).fetchVersionFiles({ ...request, files: request.files }, signal, jobFolder);
  try {
    const { submission, commit } = await checkoutRepository(request, signal, jobFolder, limits);
    return { submission, ...(commit ? { commit } : {}) };
  } catch (error) {
    if (error instanceof CheckoutError)
      return {
        status: error instanceof UnreachableCommitError ? 'commit-unreachable' : 'checkout-failed',
        message: `Could not check out the repository: ${error.message}`,
      };
    throw error;
  }
}

/**
 * Fetches the repository of `request` into a fresh folder inside `parent` and finds the
 * submission's subdirectory in it: exactly `request.commit` when given (a version graded before),
 * else the default branch's head as it is now. The fetching runs in a process of its own
 * (runCheckoutProcess: no credentials, killed at `limits`), and a checkout that fails, for
 * whatever reason, leaves nothing in `parent`. Student-caused problems (a limit included) throw
 * CheckoutError; a commit no longer reachable from any branch or tag throws UnreachableCommitError.
 */
export async function checkoutRepository(
  request: RunRequest,
  signal?: AbortSignal,
  parent = tmpdir(),
  limits: CheckoutProcessLimits = checkoutProcessLimits,
): Promise<Checkout> {
  // The worker passes what a version recorded: anything else is a fault, never the student's.
  if (request.commit !== undefined && !isCommitId(request.commit)) throw new Error(`Not a commit id: ${JSON.stringify(request.commit)}`);
  // Refused here, before any process or folder is made.
  const url = repositoryAddress(request.repository.url);
  if (url.protocol === 'file:') await localRepository(url);
  const root = await mkdtemp(join(parent, 'checkout-'));
  const remove = () => removeFolder(root);
  try {
    const { submission, commit } = await runCheckoutProcess({ request, root }, signal, limits);
    return { submission, ...(commit ? { commit } : {}), remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * The checkout itself, as the checkout process (child.ts) runs it: fetches the
 * repository of `request` (checked by checkoutRepository) into `root`, made by its parent, and
 * finds the submission's subdirectory.
 */
export async function checkoutInto(request: RunRequest, root: string): Promise<{ submission: string; commit?: string }> {
  const url = new URL(request.repository.url);
  const files = join(root, 'files');
  await mkdir(files);
  // Checked again here, just before the copy, in the process that makes it.
  const commit =
    url.protocol === 'file:' ? await copyLocal(await localRepository(url), files, request) : await cloneHttp(url, root, files, request);
  const submission = await findSubdirectory(files, request.repository.subdirectory);
  return { submission, ...(commit ? { commit } : {}) };
}

/**
 * The address of a repository that may be fetched here: http(s), or `file://` where this server
 * allows it. Throws CheckoutError (the submission's commit resolution applies the same rules).
 */
export function repositoryAddress(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CheckoutError(`${JSON.stringify(text)} is not a valid address`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'file:') {
    throw new CheckoutError(`only http and https repository addresses are supported, not ${url.protocol}`);
  }
  // Whether this server takes file:// at all; where from is checked by localRepository.
  if (url.protocol === 'file:' && !config('FILE_REPOSITORIES_DIR')) throw new CheckoutError(FILE_REPOSITORIES_OFF);
  return url;
}

/** The folder of a `file://` address, if this server's repositories folder holds it (fileRepositoryFolder). */
export async function localRepository(url: URL): Promise<string> {
  let path: string;
  try {
    path = fileURLToPath(url);
  } catch {
    throw new CheckoutError(`${JSON.stringify(url.href)} is not a valid address`);
  }
  const allowed = await fileRepositoryFolder(path);
  if ('refusal' in allowed) throw new CheckoutError(allowed.refusal);
  return allowed.folder;
}

/**
 * A local repository (local demo only; `path` as localRepository resolved it): a git repository
 * (a working tree's `.git`, or a bare one) gives the files of the commit asked for, or of HEAD,
 * never uncommitted changes; a plain folder, which has no history, is copied as it is on disk now.
 */
async function copyLocal(path: string, files: string, request: RunRequest): Promise<string | undefined> {
  const gitdir = await localGitdirInside(path);
  if (!gitdir) {
    if (request.commit) throw new UnreachableCommitError(request.commit);
    await copyTree(path, files, {
      skipNames: ['.git'],
      maxFiles: request.limits.maxRepositoryFiles,
      maxBytes: request.limits.maxRepositoryBytes,
    });
    return undefined;
  }
  const cache = {};
  let commit: string;
  if (request.commit) {
    commit = request.commit;
    if (!(await reachableLocally(gitdir, commit, cache))) throw new UnreachableCommitError(commit);
  } else {
    commit = await git.resolveRef({ fs, gitdir, ref: 'HEAD' }).catch(() => {
      throw new CheckoutError('the repository is empty (it has no commits on its default branch)');
    });
  }
  try {
    await writeCommit(gitdir, commit, files, request.limits, cache);
  } catch (error) {
    throw new CheckoutError(describeGitError(error));
  }
  return commit;
}

/** localGitdir, provided a `.git` that is a link leads inside the repositories folder too. */
export async function localGitdirInside(path: string): Promise<string | undefined> {
  const found = await localGitdir(path);
  return found && found !== path ? await localRepository(pathToFileURL(found)) : found;
}

/** The git directory of a local repository: `<path>/.git`, or `path` itself when bare; none for a plain folder. */
export async function localGitdir(path: string): Promise<string | undefined> {
  const isFolder = async (candidate: string) => (await stat(candidate).catch(() => undefined))?.isDirectory() === true;
  if (await isFolder(join(path, '.git'))) return join(path, '.git');
  const head = await stat(join(path, 'HEAD')).catch(() => undefined);
  if (head?.isFile() && (await isFolder(join(path, 'objects'))) && (await isFolder(join(path, 'refs')))) return path;
  return undefined;
}

/** Whether `commit` is HEAD or a branch or tag tip, or an ancestor of one, in a local repository. */
async function reachableLocally(gitdir: string, commit: string, cache: object): Promise<boolean> {
  const refs = [
    'HEAD',
    ...(await git.listBranches({ fs, gitdir }).catch(() => [])).map((name) => `refs/heads/${name}`),
    ...(await git.listTags({ fs, gitdir }).catch(() => [])).map((name) => `refs/tags/${name}`),
  ];
  for (const ref of refs) {
    const tip = await git.resolveRef({ fs, gitdir, ref }).catch(() => undefined);
    if (!tip) continue;
    if (tip === commit) return true;
    if (await git.isDescendent({ fs, gitdir, oid: tip, ancestor: commit, depth: -1, cache }).catch(() => false)) return true;
  }
  return false;
}

export function describeGitError(error: unknown): string {
  if (error instanceof CheckoutError) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  const data = (error as { data?: { statusCode?: number } } | null)?.data;
  if (code === 'HttpError') {
    const status = data?.statusCode ?? 0;
    if (status === 401 || status === 403)
      return `the server refused access (HTTP ${status}); the repository must be readable without a password`;
    if (status === 404) return 'no repository was found at that address (HTTP 404)';
    return `the server answered with HTTP ${status}`;
  }
  if (code === 'SmartHttpError' || code === 'ParseError' || code === 'EmptyServerResponseError' || code === 'UnknownTransportError') {
    return 'the address does not lead to a git repository';
  }
  if (code === 'NotFoundError') return 'the repository is empty or has no default branch';
  if (code === 'ABORT_ERR' || (error as Error | null)?.name === 'AbortError') return 'fetching the repository took too long';
  const errno = typeof code === 'string' ? code : '';
  if (['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE'].includes(errno)) {
    return `the server could not be reached (${errno})`;
  }
  if (errno.startsWith('ERR_TLS') || errno.includes('CERT')) return `the server's certificate could not be verified (${errno})`;
  return 'the repository could not be fetched';
}

const validName = (name: string) =>
  name !== '' &&
  name !== '.' &&
  name !== '..' &&
  name.toLowerCase() !== '.git' &&
  !name.includes('/') &&
  !name.includes('\\') &&
  !name.includes('\0');

/**
 * Fetches one commit over HTTP: `request.commit` (a version graded before: the server hands out
 * only commits reachable from its branches and tags, so a commit gone after a force-push comes back
 * missing), else the default branch's head; depth 1 either way. Answers the commit. Its time
 * limit is its process's.
 */
async function cloneHttp(url: URL, root: string, files: string, request: RunRequest): Promise<string> {
  const gitdir = join(root, 'git');
  const http = guardedHttp({
    allowedHosts: request.allowedHosts,
    maxBytes: request.limits.maxRepositoryBytes,
    maxInflatedBytes: packLimit(request.limits),
  });
  const cache = {};
  let commit = request.commit ?? '';
  try {
    if (request.commit) {
      await git.init({ fs, gitdir, bare: true });
      await git.addRemote({ fs, gitdir, remote: 'origin', url: url.href });
      await git.fetch({ fs, http, gitdir, url: url.href, remoteRef: commit, singleBranch: true, depth: 1, tags: false, cache });
    } else {
      await git.clone({ fs, http, dir: files, gitdir, url: url.href, depth: 1, singleBranch: true, noTags: true, noCheckout: true, cache });
    }
    // isomorphic-git sometimes takes a response cut short for an empty repository.
    const failure = http.failure();
    if (failure) throw failure;
    if (request.commit) {
      // An unreachable commit is not refused: the server sends nothing, and the commit is missing here.
      const fetched = await git.readCommit({ fs, gitdir, oid: commit, cache }).catch(() => undefined);
      if (!fetched) throw new UnreachableCommitError(commit);
    } else {
      commit = await git.resolveRef({ fs, gitdir, ref: 'HEAD' }).catch(() => {
        throw new CheckoutError('the repository is empty (it has no commits on its default branch)');
      });
    }
  } catch (error) {
    if (error instanceof UnreachableCommitError) throw error; // checkoutRepository removes the folder
    // isomorphic-git wraps errors raised while reading a response; the client remembers its own.
    throw new CheckoutError(describeGitError(http.failure() ?? error));
  } finally {
    http.release();
  }
  try {
    await writeCommit(gitdir, commit, files, request.limits, cache);
  } catch (error) {
    throw new CheckoutError(describeGitError(error));
  } finally {
    await removeFolder(gitdir);
  }
  return commit;
}

/** Writes the files of `commit` ourselves: counted, size-capped, and with every name checked. */
async function writeCommit(gitdir: string, commit: string, files: string, limits: RunRequest['limits'], cache: object): Promise<void> {
  let fileCount = 0;
  let byteCount = 0;
  await git.walk({
    fs,
    gitdir,
    cache,
    trees: [TREE({ ref: commit })],
    // One entry at a time, so at most one file's content is in memory.
    iterate: async (walk, children) => {
      for (const child of children) await walk(child);
      return [];
    },
    reduce: async () => undefined,
    map: async (path: string, [entry]: (WalkerEntry | null)[]) => {
      if (!entry) return null;
      if (path === '.') return true;
      if (!path.split('/').every(validName)) return null;
      const target = join(files, ...path.split('/'));
      const type = await entry.type();
      if (type === 'tree') {
        await mkdir(target);
        return true;
      }
      if (type !== 'blob') return null; // submodules are not fetched
      fileCount += 1;
      if (fileCount > limits.maxRepositoryFiles) throw new CheckoutError(`the repository has more than ${limits.maxRepositoryFiles} files`);
      const content = (await entry.content()) ?? new Uint8Array();
      byteCount += content.length;
      if (byteCount > limits.maxRepositoryBytes)
        throw new CheckoutError(`the repository is larger than the limit of ${formatBytes(limits.maxRepositoryBytes)}`);
      const mode = await entry.mode();
      if (mode === 0o120000) await symlink(Buffer.from(content).toString('utf8'), target);
      else {
        await writeFile(target, content, { flag: 'wx' }); // never through an existing entry or link
        await chmod(target, mode === 0o100755 ? 0o755 : 0o644);
      }
      return null;
    },
  });
}

/** The submission's folder: `subdirectory` of the checkout, which must exist and stay inside it. */
async function findSubdirectory(files: string, subdirectory: string): Promise<string> {
  const wanted = subdirectory.replace(/^\/+|\/+$/g, '');
  if (wanted === '') return files;
  const shown = JSON.stringify(subdirectory);
  const candidate = resolve(files, wanted);
  const inside = (base: string, path: string) => {
    const rel = relative(base, path);
    return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
  };
  if (!inside(files, candidate) || wanted.split('/').includes('..')) {
    throw new CheckoutError(`the subdirectory ${shown} lies outside the repository`);
  }
  const info = await lstat(candidate).catch(() => undefined);
  if (!info) throw new CheckoutError(`the repository has no subdirectory ${shown}`);
  const real = await realpath(candidate).catch(() => undefined);
  if (!real || !inside(await realpath(files), real)) throw new CheckoutError(`the subdirectory ${shown} lies outside the repository`);
  if (!(await stat(real)).isDirectory()) throw new CheckoutError(`${shown} in the repository is not a folder`);
  return real;
}
