import fs from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, realpath, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import git, { TREE, type WalkerEntry } from 'isomorphic-git';
import { config } from '#shared/config.ts';
import type { RunRequest } from './runner-protocol.ts';
import { CheckoutError } from './checkout-error.ts';
import { guardedHttp } from './checkout-http.ts';
import { copyTree, formatBytes, removeFolder } from './checkout-files.ts';

export { CheckoutError } from './checkout-error.ts';

/** How long fetching a repository may take. */
export const CHECKOUT_TIME_LIMIT_MS = 45_000;

export interface Checkout {
  /** The submission's folder (the repository's subdirectory) inside the checkout. */
  readonly submission: string;
  /** Removes everything the checkout wrote. */
  readonly remove: () => Promise<void>;
}

/**
 * The checkout both sandboxes start from: the submission's folder, or the `checkout-failed` result
 * the student sees when the repository could not be fetched (only faults of this machine throw).
 */
export async function checkoutOrFailure(
  request: RunRequest,
  signal: AbortSignal | undefined,
  jobFolder: string,
): Promise<{ submission: string } | { status: 'checkout-failed'; message: string }> {
  try {
    return { submission: (await checkoutRepository(request, signal, jobFolder)).submission };
  } catch (error) {
    if (error instanceof CheckoutError)
      return { status: 'checkout-failed', message: `Could not check out the repository: ${error.message}` };
    throw error;
  }
}

/**
 * Fetches the repository of `request` as it is now into a fresh folder inside `parent` and finds
 * the submission's subdirectory in it. Student-caused problems throw CheckoutError.
 */
export async function checkoutRepository(request: RunRequest, signal?: AbortSignal, parent = tmpdir()): Promise<Checkout> {
  let url: URL;
  try {
    url = new URL(request.repository.url);
  } catch {
    throw new CheckoutError(`${JSON.stringify(request.repository.url)} is not a valid address`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'file:') {
    throw new CheckoutError(`only http and https repository addresses are supported, not ${url.protocol}`);
  }
  if (url.protocol === 'file:' && !config('ALLOW_FILE_REPOSITORIES')) {
    throw new CheckoutError('file:// repository addresses are not allowed on this server');
  }

  const root = await mkdtemp(join(parent, 'checkout-'));
  const remove = () => removeFolder(root);
  try {
    const files = join(root, 'files');
    await mkdir(files);
    if (url.protocol === 'file:') await copyLocal(url, files, request);
    else await cloneHttp(url, root, files, request, signal);
    const submission = await findSubdirectory(files, request.repository.subdirectory);
    return { submission, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

async function copyLocal(url: URL, files: string, request: RunRequest): Promise<void> {
  const path = fileURLToPath(url);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) throw new CheckoutError(`${path} is not a folder`);
  // A git repository's working tree, as it is on disk now, without its history.
  await copyTree(path, files, {
    skipNames: ['.git'],
    maxFiles: request.limits.maxRepositoryFiles,
    maxBytes: request.limits.maxRepositoryBytes,
  });
}

function describeGitError(error: unknown): string {
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

async function cloneHttp(url: URL, root: string, files: string, request: RunRequest, outerSignal?: AbortSignal): Promise<void> {
  const gitdir = join(root, 'git');
  const timer = AbortSignal.timeout(CHECKOUT_TIME_LIMIT_MS);
  const signal = outerSignal ? AbortSignal.any([timer, outerSignal]) : timer;
  const http = guardedHttp({ allowedHosts: request.allowedHosts, maxBytes: request.limits.maxRepositoryBytes, signal });
  const cache = {};
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(new CheckoutError('fetching the repository took too long'));
    signal.addEventListener('abort', () => reject(new CheckoutError('fetching the repository took too long')), { once: true });
  });
  aborted.catch(() => undefined);
  try {
    await Promise.race([
      git.clone({ fs, http, dir: files, gitdir, url: url.href, depth: 1, singleBranch: true, noTags: true, noCheckout: true, cache }),
      aborted,
    ]);
    // isomorphic-git sometimes takes a response cut short for an empty repository.
    const failure = http.failure();
    if (failure) throw failure;
    await git.resolveRef({ fs, gitdir, ref: 'HEAD' }).catch(() => {
      throw new CheckoutError('the repository is empty (it has no commits on its default branch)');
    });
  } catch (error) {
    // isomorphic-git wraps errors raised while reading a response; the client remembers its own.
    throw new CheckoutError(describeGitError(http.failure() ?? error));
  }

  // Write the files of HEAD ourselves: counted, size-capped, and with every name checked.
  let fileCount = 0;
  let byteCount = 0;
  const limits = request.limits;
  try {
    await Promise.race([
      git.walk({
        fs,
        gitdir,
        cache,
        trees: [TREE({ ref: 'HEAD' })],
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
          if (fileCount > limits.maxRepositoryFiles)
            throw new CheckoutError(`the repository has more than ${limits.maxRepositoryFiles} files`);
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
      }),
      aborted,
    ]);
  } catch (error) {
    throw new CheckoutError(describeGitError(error));
  } finally {
    await removeFolder(gitdir);
  }
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
