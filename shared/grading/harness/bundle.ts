import { fileURLToPath } from 'node:url';
import { bundleForNode } from '../esbuild-bundle.ts';

const ENTRY = fileURLToPath(new URL('./main.ts', import.meta.url));

/**
 * The name the bundled runner (runner/bundle.ts) carries the harness bundle under, as text put in
 * by esbuild's `define`: such a runner makes no bundle and needs no esbuild.
 */
export const HARNESS_BUNDLE_GLOBAL = 'GRADING_HARNESS_BUNDLE';
declare const GRADING_HARNESS_BUNDLE: string | undefined;

let bundle: Promise<Uint8Array> | undefined;

/**
 * The harness as one self-contained ES module (harness/main.ts and what it imports, bundled by
 * esbuild), built once per process. The same file runs in any sandbox that has Node 20 or newer.
 */
export function harnessBundle(): Promise<Uint8Array> {
  if (typeof GRADING_HARNESS_BUNDLE === 'string') bundle ??= Promise.resolve(new TextEncoder().encode(GRADING_HARNESS_BUNDLE));
  bundle ??= bundleForNode(ENTRY, 'the grading harness', {
    banner: { js: '// The grading harness (shared/grading/harness/main.ts), bundled.' },
  });
  bundle.catch(() => {
    bundle = undefined;
  });
  return bundle;
}
