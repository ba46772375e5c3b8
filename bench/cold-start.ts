import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { App, Stack } from 'aws-cdk-lib';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { bundledCode, PROJECT_ROOT } from '#infra/aws/service-function.ts';
import { SWAGGER_UI_BUNDLING } from '#infra/docs-assets.ts';
import {
  GRADING_WORKER_FUNCTION,
  NOT_FOUND_FUNCTION,
  functionNames as stackFunctionNames,
  type FunctionName,
} from '#infra/function-access.ts';
import { workers } from '#functions/definitions.ts';
import { kb, median, ms, progress, ratio, type Row, type SectionResult } from './common.ts';

const SECTION = 'Cold start';
const RUNS = 20;
const WARM_UP_RUNS = 1;
/** The baseline is imported again after every this many functions' bundles. */
const BASELINE_EVERY = 4;
/** Import time: an HTTP function (a route's, or the `$default` one) answers a waiting client. */
const HTTP_TARGET = 1.2;
/** Import time: a worker (queues, the schedule) answers nobody waiting on a page. */
const WORKER_TARGET = 1.3;
/** The functions' median bundle bytes. */
const SIZE_TARGET = 1.3;
const importTarget = (name: string): number => (Object.hasOwn(workers, name) && name !== NOT_FOUND_FUNCTION ? WORKER_TARGET : HTTP_TARGET);
const BASELINE = 'baseline: one GetItem';
const run = promisify(execFile);

interface Bundle {
  readonly name: string;
  readonly file: string;
  readonly bytes: number;
  /** Bytes in the output by contributor (an npm package, or a project folder). */
  readonly contributors: Map<string, number>;
}

/** Every function the stack deploys. */
export function functionNames(): string[] {
  return [...stackFunctionNames];
}

/**
 * Bundles each function with the CDK stack's own settings (`bundledCode` of
 * infra/aws/service-function.ts, through NodejsFunction and CDK's local esbuild bundling, plus a
 * metafile), then imports each bundle in fresh Node processes, round after round, and compares
 * its size with the one-GetItem baseline's, and its import time with the baseline's imports just
 * before and after it (the median of those ratios). A bundle is the handler's `index.mjs`:
 * companion files (infra/aws/service-function.ts) load on first use, not at import.
 */
export async function measureColdStart(): Promise<SectionResult> {
  const outdir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  try {
    const entries: [string, string][] = [
      [BASELINE, `${PROJECT_ROOT}bench/baseline/get-item.ts`],
      ...functionNames().map((name): [string, string] => [name, `${PROJECT_ROOT}functions/${name}/handler.ts`]),
    ];
    progress(`cold start: bundling ${entries.length} entries with the CDK stack's esbuild settings`);
    const bundles = entries.map(([name, entry], index) => bundle(name, entry, join(outdir, String(index))));

    progress(`cold start: importing each bundle in ${WARM_UP_RUNS + RUNS} fresh Node ${process.versions.node} processes`);
    const times = new Map<string, number[]>(bundles.map((b) => [b.name, []]));
    const ratios = new Map<string, number[]>(bundles.map((b) => [b.name, []]));
    const [baseline, ...functions] = bundles as [Bundle, ...Bundle[]];
    for (let round = 0; round < WARM_UP_RUNS + RUNS; round++) {
      const counted = round >= WARM_UP_RUNS;
      // Rotate the order each round, so no bundle always runs right after another; the baseline
      // runs between every few, and each import is compared with the baseline's just before and
      // after it, so that the machine's changing load (other processes) weighs on both alike.
      const order = functions.map((_, index) => functions[(index + round) % functions.length]!);
      let before = await importTime(baseline.file);
      if (counted) times.get(baseline.name)!.push(before);
      for (let start = 0; start < order.length; start += BASELINE_EVERY) {
        const group: [Bundle, number][] = [];
        for (const b of order.slice(start, start + BASELINE_EVERY)) group.push([b, await importTime(b.file)]);
        const after = await importTime(baseline.file);
        if (counted) {
          times.get(baseline.name)!.push(after);
          for (const [b, time] of group) {
            times.get(b.name)!.push(time);
            ratios.get(b.name)!.push(time / ((before + after) / 2));
          }
        }
        before = after;
      }
    }
    ratios.set(baseline.name, [1]);
    return report(bundles, times, ratios);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

function bundle(name: string, entry: string, outdir: string): Bundle {
  const app = new App({ outdir });
  // As the stack bundles it: the grading worker with its companion files.
  const code = bundledCode(entry, {
    swaggerUi: SWAGGER_UI_BUNDLING[name as FunctionName],
    checkoutProcess: name === GRADING_WORKER_FUNCTION,
  });
  // The stack's settings untouched; `metafile` only adds index.meta.json beside the bundle.
  new NodejsFunction(new Stack(app, 'Bench'), 'Function', { ...code, bundling: { ...code.bundling, metafile: true } });
  const asset = readdirSync(outdir).find((file) => file.startsWith('asset.'));
  if (!asset) throw new Error(`CDK produced no bundle for ${name}`);
  const file = join(outdir, asset, 'index.mjs');
  const meta = JSON.parse(readFileSync(join(outdir, asset, 'index.meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
  };
  const contributors = new Map<string, number>();
  for (const output of Object.values(meta.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const key = contributor(input);
      contributors.set(key, (contributors.get(key) ?? 0) + bytesInOutput);
    }
  }
  return { name, file, bytes: statSync(file).size, contributors };
}

/** `@aws-sdk/client-dynamodb`, `jose`, or a project folder such as `shared/auth`. */
function contributor(input: string): string {
  const modules = input.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = input.slice(modules + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  return input.split('/').slice(0, 2).join('/');
}

/** Milliseconds from `import()` to its settling, in a fresh process with a Lambda-like environment. */
async function importTime(file: string): Promise<number> {
  const script = 'const t=performance.now();await import(process.env.BUNDLE_URL);process.stdout.write(String(performance.now()-t));';
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      PATH: process.env.PATH,
      BUNDLE_URL: pathToFileURL(file).href,
      AWS_REGION: 'us-east-1',
      // As the stack configures every function.
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: 'course-submission-api',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
  });
  return Number(stdout);
}

/**
 * `ratios`: per function, each import's time over the mean of the baseline's imports just before
 * and after it; the row's ratio is their median.
 */
function report(bundles: readonly Bundle[], times: Map<string, number[]>, ratios: Map<string, number[]>): SectionResult {
  const baseline = bundles[0]!;
  const baseTime = median(times.get(baseline.name)!);
  const rows: Row[] = [];
  const notes: string[] = [];
  const heavier: string[] = [];
  const contributions = new Map<string, string[]>();
  for (const b of bundles) {
    const time = median(times.get(b.name)!);
    const timeRatio = median(ratios.get(b.name)!);
    const sizeRatio = b.bytes / baseline.bytes;
    const isBaseline = b === baseline;
    const target = importTarget(b.name);
    rows.push({
      section: SECTION,
      name: isBaseline ? `${b.name} (bundle, import)` : b.name,
      target: isBaseline ? '—' : `import ≤ ${target}× baseline`,
      baseline: isBaseline ? '—' : `${kb(baseline.bytes)}, ${ms(baseTime)}`,
      measured: `${kb(b.bytes)} (${ratio(sizeRatio)}), import ${ms(time)} (${ratio(timeRatio)})`,
      met: isBaseline ? undefined : timeRatio <= target,
    });
    if (!isBaseline && timeRatio > target) {
      notes.push(
        `- **${b.name}** imports in ${ratio(timeRatio)} the baseline's time, ${kb(b.bytes - baseline.bytes)} more code. Beyond the baseline it carries (esbuild metafile): ${heaviest(b, baseline)}.`,
      );
    } else if (!isBaseline && sizeRatio > SIZE_TARGET) {
      heavier.push(`${b.name} ${ratio(sizeRatio)}`);
      const extra = heaviest(b, baseline);
      contributions.set(extra, [...(contributions.get(extra) ?? []), b.name]);
    }
  }
  // The functions' bundles together: their median size against the baseline's.
  const sizeRatios = bundles.filter((b) => b !== baseline).map((b) => b.bytes / baseline.bytes);
  const medianSize = median(sizeRatios);
  rows.push({
    section: SECTION,
    name: 'median function bundle',
    target: `bytes ≤ ${SIZE_TARGET}× baseline`,
    baseline: kb(baseline.bytes),
    measured: `${kb(medianSize * baseline.bytes)} (${ratio(medianSize)})`,
    met: medianSize <= SIZE_TARGET,
  });
  if (heavier.length > 0) {
    notes.push(
      `- Cold start, bundle size: ${heavier.join(', ')} of the baseline's bytes, though each imports within its target of the baseline's time (met). Beyond the baseline they carry (esbuild metafile, bytes in the output):`,
      ...[...contributions].map(([extra, names]) => `  - ${names.join(', ')}: ${extra}`),
      "  These are the service's own dependencies, loaded by every handler through the shared middy stack and token check (middy, jose for the JWT, the Powertools logger) and the project's code, plus each route's own (a parser, a client). What a request may not need is not counted here: the multipart parser, the S3, Secrets Manager and SQS clients and the git client are companion files of the asset, loaded by the first request that needs them.",
    );
  }
  return { rows, notes };
}

/** The largest contributors a bundle has beyond the baseline's, from the esbuild metafiles. */
function heaviest(b: Bundle, baseline: Bundle): string {
  const extra = [...b.contributors]
    .map(([name, bytes]) => [name, bytes - (baseline.contributors.get(name) ?? 0)] as const)
    .filter(([, bytes]) => bytes >= 4096)
    .sort((x, y) => y[1] - x[1])
    .slice(0, 6);
  return extra.length === 0 ? 'nothing over 4 KB' : extra.map(([name, bytes]) => `${name} +${kb(bytes)}`).join(', ');
}
