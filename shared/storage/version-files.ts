/**
 * A version's files in the submissions bucket, stored under a files id of their own before the
 * version's transaction (which records the id), so a submission that loses the race for a version
 * number never writes the winner's files. Deleted again when no version records them; the uploads
 * they were copied from are deleted once a version does.
 */
import { newFilesId, versionFilesKey, type SubmitterFolder } from './keys.ts';
import { copyObject, deleteObjects, putObject } from './objects.ts';

/** A file to store: the bytes sent, or the key of the upload it is copied from. */
export interface FileToStore {
  readonly name: string;
  readonly content?: Buffer;
  readonly uploadKey?: string;
}

export interface VersionFilesStore {
  /** The files id, which the version records. */
  readonly id: string;
  /** Whether `error` is an upload found gone before its copy (thrown by store). */
  isGone(error: unknown): boolean;
  /** Stores every file in the owner's folder; every write ends before the first failure is thrown. */
  store(folder: SubmitterFolder): Promise<void>;
  /** Deletes what was stored: no version records these files, so nothing reads them. */
  discard(): Promise<void>;
  /** Once the version's transaction went through: its uploads are copies now, deleted. */
  consumed(): Promise<void>;
}

/**
 * The store of a version's `files`; `gone(index)`: what an upload checked, then gone before its copy,
 * is refused with (consumed by a version since).
 */
export function versionFilesStore(files: readonly FileToStore[], gone: (index: number) => Error): VersionFilesStore {
  const id = newFilesId();
  // Every key written (a submission that starts over on a gradeable changed meanwhile stores again, for its owner then).
  const keys = new Set<string>();
  let goneError: Error | undefined;
  const copy = async (file: FileToStore, key: string): Promise<void> => {
    if (await copyObject(file.uploadKey as string, key)) return;
    goneError ??= gone(files.indexOf(file));
    throw goneError;
  };
  return {
    id,
    isGone: (error) => goneError !== undefined && error === goneError,
    store: async (folder) => {
      // Every write ended before any is thrown, so that discard removes all of them.
      const writes = await Promise.allSettled(
        files.map((file) => {
          const key = versionFilesKey(folder, id, file.name);
          keys.add(key);
          return file.content ? putObject(key, file.content) : copy(file, key);
        }),
      );
      const failed = writes.find((write) => write.status === 'rejected');
      if (failed) throw failed.reason;
    },
    // What cannot be deleted now stays unread until the term's versions expire.
    discard: async () => {
      if (keys.size > 0) await deleteObjects([...keys]).catch(() => undefined);
    },
    // What is left expires anyway.
    consumed: async () => {
      const uploads = files.flatMap((file) => (file.uploadKey ? [file.uploadKey] : []));
      if (uploads.length > 0) await deleteObjects(uploads).catch(() => undefined);
    },
  };
}
