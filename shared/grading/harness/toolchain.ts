import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** One read-only piece of the toolchain inside a sandbox: a bound folder or file, or a symbolic link. */
export type ToolchainMount =
  { readonly kind: 'ro-bind'; readonly path: string } | { readonly kind: 'symlink'; readonly path: string; readonly target: string };

/** Top-level folders holding programs and libraries (or, on merged-/usr systems, links to them). */
const TOP_LEVEL = ['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

/**
 * The parts of /etc that compilers and interpreters read: the dynamic linker's cache, the
 * alternatives links (`java`, `awk`, …), time zone, and the configuration folders of Java, Perl
 * and Python. Everything else in /etc (host names, users, keys, the operator's files) stays out.
 */
const ETC_TOOLCHAIN =
  /^(alternatives|ld\.so\.cache|ld\.so\.conf(\.d)?|localtime|timezone|mime\.types|java(-\d+-openjdk)?|perl|python3(\.\d+)?)$/;
export const isToolchainEtc = (name: string): boolean => ETC_TOOLCHAIN.test(name);

/** The account and name files a sandbox gets, generated rather than taken from the host. */
export const ETC_GENERATED: readonly string[] = ['passwd', 'group', 'hosts', 'nsswitch.conf'];

/**
 * The toolchain as the machine at `root` has it: /usr and the /bin, /sbin, /lib* folders or
 * links, and the /etc entries `includeEtc` accepts (links are kept as links, never followed).
 */
export function discoverToolchain(root = '/', includeEtc: (name: string) => boolean = isToolchainEtc): ToolchainMount[] {
  const mounts: ToolchainMount[] = [];
  const add = (path: string) => {
    const info = lstatSafe(join(root, path));
    if (!info) return;
    if (info.isSymbolicLink()) mounts.push({ kind: 'symlink', path: `/${path}`, target: readlinkSync(join(root, path)) });
    else if (info.isDirectory() || info.isFile()) mounts.push({ kind: 'ro-bind', path: `/${path}` });
  };
  for (const name of TOP_LEVEL) add(name);
  let etcEntries: string[] = [];
  try {
    etcEntries = readdirSync(join(root, 'etc')).sort();
  } catch {
    // No /etc at all: nothing to add.
  }
  for (const name of etcEntries) if (includeEtc(name)) add(`etc/${name}`);
  return mounts;
}

/** bubblewrap arguments mounting `mounts` at the same paths, read-only, from `root` of the caller's view. */
export function toolchainArgs(mounts: readonly ToolchainMount[], root = '/'): string[] {
  return mounts.flatMap((mount) =>
    mount.kind === 'symlink' ? ['--symlink', mount.target, mount.path] : ['--ro-bind', join(root, mount.path), mount.path],
  );
}

function lstatSafe(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
