import { chmod, copyFile, lchown, lstat, mkdir, readdir, readlink, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckoutError } from './error.ts';

export interface Owner {
  readonly uid: number;
  readonly gid: number;
}

export interface CopyOptions {
  /** Entry names left out at every level (`.git`). */
  readonly skipNames?: readonly string[];
  /** Exceeding either throws CheckoutError. */
  readonly maxFiles?: number;
  readonly maxBytes?: number;
  /** Give every copied entry to this user (the unprivileged user commands run as). */
  readonly owner?: Owner;
}

export interface CopyTotals {
  files: number;
  bytes: number;
}

/** 50 MB, 640 KB, 200 bytes. */
export const formatBytes = (bytes: number): string =>
  bytes >= 1024 * 1024
    ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`
    : bytes >= 1024
      ? `${Math.round(bytes / 1024)} KB`
      : `${bytes} bytes`;

/**
 * Copies the folder `source` into the existing folder `destination`: regular files (with their
 * mode), folders and symbolic links as links (never followed). Sockets, pipes and devices are
 * left out.
 */
export async function copyTree(source: string, destination: string, options: CopyOptions = {}): Promise<CopyTotals> {
  const totals: CopyTotals = { files: 0, bytes: 0 };
  const skip = new Set(options.skipNames ?? []);
  const count = (bytes: number) => {
    totals.files += 1;
    totals.bytes += bytes;
    if (options.maxFiles !== undefined && totals.files > options.maxFiles) {
      throw new CheckoutError(`the repository has more than ${options.maxFiles} files`);
    }
    if (options.maxBytes !== undefined && totals.bytes > options.maxBytes) {
      throw new CheckoutError(`the repository is larger than the limit of ${formatBytes(options.maxBytes)}`);
    }
  };
  const own = async (path: string) => {
    if (options.owner) await lchown(path, options.owner.uid, options.owner.gid);
  };

  async function copyFolder(from: string, to: string): Promise<void> {
    for (const entry of await readdir(from, { withFileTypes: true })) {
      if (skip.has(entry.name)) continue;
      const source = join(from, entry.name);
      const target = join(to, entry.name);
      if (entry.isDirectory()) {
        await mkdir(target);
        await own(target);
        await copyFolder(source, target);
      } else if (entry.isSymbolicLink()) {
        count(0);
        await symlink(await readlink(source), target);
        await own(target);
      } else if (entry.isFile()) {
        count((await lstat(source)).size);
        await copyFile(source, target);
        await own(target);
      }
    }
  }

  await copyFolder(source, destination);
  return totals;
}

/** Gives `path` and everything below it (links themselves, never their targets) to `owner`. */
export async function chownTree(path: string, owner: Owner): Promise<void> {
  await lchown(path, owner.uid, owner.gid);
  if (!(await lstat(path)).isDirectory()) return;
  for (const entry of await readdir(path)) await chownTree(join(path, entry), owner);
}

/** Removes a folder even where a command took its permissions away. */
export async function removeFolder(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true, maxRetries: 2 });
    return;
  } catch {
    // Give folders back their permissions, then try again.
  }
  async function unlock(folder: string): Promise<void> {
    await chmod(folder, 0o700).catch(() => undefined);
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) if (entry.isDirectory()) await unlock(join(folder, entry.name));
  }
  await unlock(path);
  await rm(path, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined);
}
