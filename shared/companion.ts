/**
 * The module of a companion file beside the deployed bundle (infra/aws/service-function.ts builds
 * them), by the file name esbuild's `define` gave the caller's global. Each caller keeps its own
 * `typeof GLOBAL === 'string' ? companionModule(GLOBAL) : import('./source.ts')`: only a condition
 * esbuild decides at build time drops the source import, and the module's code with it, from the
 * bundle.
 */
export const companionModule = <T>(file: string): Promise<T> => import(new URL(`./${file}`, import.meta.url).href) as Promise<T>;
