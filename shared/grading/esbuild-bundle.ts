import type { BuildOptions } from 'esbuild';

/** A specifier in a variable: bundlers leave the import alone, so a bundled runner does not carry esbuild. */
const ESBUILD = 'esbuild';

/**
 * `entry` and what it imports bundled by esbuild into one ES module for Node 20 or newer (the
 * harness, the runner), with `banner` and `define` as given. Throws without esbuild.
 */
export async function bundleForNode(entry: string, what: string, options: Pick<BuildOptions, 'banner' | 'define'>): Promise<Uint8Array> {
  const { build } = (await import(ESBUILD)) as typeof import('esbuild');
  const output = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    ...options,
  });
  const [file] = output.outputFiles;
  if (!file) throw new Error(`esbuild made no bundle of ${what}`);
  return file.contents;
}
