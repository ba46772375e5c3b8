import { createHash } from 'node:crypto';
import { lstat, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHECKOUT_CHILD_GLOBAL, checkoutChildBundle } from '../checkout/process.ts';
import { bundleForNode } from '../esbuild-bundle.ts';
import { HARNESS_BUNDLE_GLOBAL, harnessBundle } from '../harness/bundle.ts';

/** The runner's entry point as TypeScript: what runs when no bundle can be made. */
export const RUNNER_SOURCE = fileURLToPath(new URL('./cli.ts', import.meta.url));

let entry: Promise<string> | undefined;

/**
 * The file a runner process starts from: cli.ts and what it imports (the harness bundle
 * included, as text) bundled by esbuild into one ES module, built once per process and kept under
 * its content's hash in a folder only this user can enter. A fresh Node loads it in a fraction of
 * the time it takes to strip the types of the 200 modules behind cli.ts, and builds no
 * harness bundle of its own: that start-up was most of a trivial job's time. Without esbuild (a
 * machine that never bundles) or such a folder, the runner starts from its TypeScript source.
 */
export function runnerEntry(): Promise<string> {
  entry ??= build().catch(() => RUNNER_SOURCE);
  return entry;
}

async function build(): Promise<string> {
  const harness = Buffer.from(await harnessBundle()).toString('utf8');
  // The checkout process (checkout/child.ts) starts from its own bundle, beside the runner's.
  const checkout = await checkoutChildBundle();
  const checkoutName = `checkout-${hashOf(checkout)}.mjs`;
  const contents = await bundleForNode(RUNNER_SOURCE, 'the grading runner', {
    define: { [HARNESS_BUNDLE_GLOBAL]: JSON.stringify(harness), [CHECKOUT_CHILD_GLOBAL]: JSON.stringify(checkoutName) },
    // Some of isomorphic-git's dependencies are CommonJS and require Node's modules.
    banner: {
      js: "// The grading runner (shared/grading/runner/cli.ts), bundled.\nimport { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
    },
  });
  const folder = await privateFolder(join(tmpdir(), `grading-runner-${process.getuid?.() ?? 'user'}`));
  await writeOnce(join(folder, checkoutName), checkout);
  const path = join(folder, `${hashOf(contents)}.mjs`);
  await writeOnce(path, contents);
  return path;
}

const hashOf = (contents: Uint8Array) => createHash('sha256').update(contents).digest('hex').slice(0, 32);

/** Writes `contents` to `path` unless it holds them already. */
async function writeOnce(path: string, contents: Uint8Array): Promise<void> {
  const existing = await readFile(path).catch(() => undefined);
  if (existing?.equals(contents)) return;
  // Written whole under another name first: a runner started meanwhile never reads half a file.
  const partial = `${path}.${process.pid}.${Date.now()}`;
  await writeFile(partial, contents, { mode: 0o444 });
  await rename(partial, path);
}

/** `path` as a folder of this user's that nobody else may enter (made if missing); anything else throws. */
async function privateFolder(path: string): Promise<string> {
  await mkdir(path, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const info = await lstat(path);
  if (!info.isDirectory() || info.uid !== process.getuid?.() || (info.mode & 0o077) !== 0)
    throw new Error(`${path} is not a private folder of this user`);
  return path;
}
