import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, lstat, mkdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';

/**
 * Where a server run as root keeps the copies of Node that other users' processes start from: one
 * folder under the system's temporary folder, root's, 0755.
 */
export const readableNodeFolder = (): string => join(tmpdir(), 'grading-node');

let copy: Promise<string> | undefined;

/**
 * The Node binary for processes that run as another user than this one (the grading sandbox's
 * per-job uids; the deployed-artifact test's functions). Not root, they run as this user, who
 * reads this process's own binary. As root, this process's own binary when any user may reach
 * and run it (`npm ci` in an ordinary folder). But root may run from a folder nobody else may
 * enter (a clone in /root or in a `mktemp -d`): then a copy that every user may read and run,
 * `<readableNodeFolder()>/<its content's SHA-256>/node`, made once per version of Node and checked
 * at every use to be root's and unwritable by anyone else (a runner started from such a copy then
 * uses it as it is). Where no copy can be made or run (a temporary folder mounted noexec, another
 * user's folder in the way), this process's own binary: the sandbox then fails as before, with
 * bubblewrap's message.
 */
export function readableNode(): Promise<string> {
  if (process.getuid?.() !== 0) return Promise.resolve(process.execPath);
  const own = process.execPath;
  copy ??= othersMayRun(own)
    .then((reachable) => (reachable ? own : copyOfNode(readableNodeFolder(), own)))
    .catch(() => own);
  return copy;
}

/**
 * `<cache>/<SHA-256 of source>/node`: a copy of `source` (this process's Node) that every user
 * may read and run, made if missing or not as it was left. Throws when `cache`, or the folder it
 * is in, is not root's alone (another user's folder, a link, a folder others may write to and that
 * is not sticky), when the copy cannot be made or does not run as this Node.
 */
export async function copyOfNode(cache: string, source: string): Promise<string> {
  const root = await rootFolder(cache);
  const hash = await sha256(source);
  const folder = await rootFolder(join(root, hash));
  const path = join(folder, 'node');
  if (!(await isRootsCopy(folder, path))) {
    // Written whole under another name first, then renamed: nobody ever runs half a binary.
    const partial = join(folder, `.partial-${process.pid}-${randomBytes(8).toString('hex')}`);
    try {
      const hasher = createHash('sha256');
      const tap = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hasher.update(chunk);
          done(null, chunk);
        },
      });
      await pipeline(createReadStream(source), tap, createWriteStream(partial, { flags: 'wx', mode: 0o500 }));
      if (hasher.digest('hex') !== hash) throw new Error(`${source} changed while it was copied`);
      await chmod(partial, 0o555);
      await rename(partial, path);
    } finally {
      await rm(partial, { force: true });
    }
  }
  const version = await new Promise<string>((resolve, reject) =>
    execFile(path, ['--version'], { timeout: 30_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout.trim()))),
  );
  if (version !== process.version) throw new Error(`${path} is ${version}, not ${process.version}`);
  return path;
}

/**
 * Whether a user of no group of the file's, nor its owner, may reach `path` through every folder
 * above it and run it: as the sandbox's per-job uids are (access control lists aside).
 */
async function othersMayRun(path: string): Promise<boolean> {
  const real = await realpath(path);
  if (((await stat(real)).mode & 0o005) !== 0o005) return false;
  for (let folder = dirname(real); ; folder = dirname(folder)) {
    if (((await stat(folder)).mode & 0o001) === 0) return false;
    if (folder === dirname(folder)) return true;
  }
}

/** `path`, a regular file of root's in root's `folder`, that nobody else may change: as copyOfNode leaves it. */
async function isRootsCopy(folder: string, path: string): Promise<boolean> {
  const [outer, info] = await Promise.all([lstat(folder).catch(() => undefined), lstat(path).catch(() => undefined)]);
  if (!outer?.isDirectory() || outer.uid !== 0 || (outer.mode & 0o022) !== 0) return false;
  return info !== undefined && info.isFile() && info.uid === 0 && (info.mode & 0o7777) === 0o555;
}

/**
 * `path` as a folder of root's, 0755, that no other user can replace or write to: its parent must
 * be root's and either closed to others or sticky (as /tmp is), so nobody else can rename it away.
 */
async function rootFolder(path: string): Promise<string> {
  const parent = await realpath(dirname(path));
  const above = await stat(parent);
  if (above.uid !== 0 || ((above.mode & 0o022) !== 0 && (above.mode & 0o1000) === 0))
    throw new Error(`${parent} may be changed by other users`);
  const folder = join(parent, basename(path));
  await mkdir(folder, { mode: 0o755 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const info = await lstat(folder);
  if (!info.isDirectory() || info.uid !== 0) throw new Error(`${folder} is not a folder of root's`);
  // Whatever the umask made of it: everyone may enter, only root may write.
  if ((info.mode & 0o7777) !== 0o755) await chmod(folder, 0o755);
  return folder;
}

async function sha256(path: string): Promise<string> {
  const hasher = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hasher.update(chunk as Buffer);
  return hasher.digest('hex');
}
