import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { App, Stack } from 'aws-cdk-lib';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as assetHandler } from '#functions/api-docs-asset/handler.ts';
import { handler as pageHandler } from '#functions/api-docs/handler.ts';
import { bundledCode, PROJECT_ROOT } from '#infra/aws/service-function.ts';
import { SWAGGER_UI_ASSET_FOLDER, SWAGGER_UI_BUNDLING } from '#infra/docs-assets.ts';
import { readSwaggerUi, SWAGGER_UI_FILES, swaggerUiFolder, swaggerUiLinks } from '#shared/docs/swagger-ui.ts';
import type { ApiEvent } from '#shared/http/types.ts';
import { apiEvent } from '../support/events.ts';

/**
 * Swagger UI comes from `swagger-ui-dist` as npm installed it: read from node_modules by the local
 * server, and at bundle time into the Lambda code (the stack's own bundling, through CDK's local
 * esbuild), where the bundled functions answer exactly as the local ones do.
 */
const LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024;
const run = promisify(execFile);
const installed = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

interface Bundled {
  readonly folder: string;
  readonly files: string[];
  readonly bytes: number;
}

let outdir: string;
const bundled = new Map<'api-docs' | 'api-docs-asset', Bundled>();

/** Bundles a function as the stack does, into a Lambda asset folder of its own. */
async function bundle(name: 'api-docs' | 'api-docs-asset'): Promise<Bundled> {
  const appDir = join(outdir, name);
  const app = new App({ outdir: appDir });
  new NodejsFunction(
    new Stack(app, 'Docs'),
    'Function',
    bundledCode(`${PROJECT_ROOT}functions/${name}/handler.ts`, { swaggerUi: SWAGGER_UI_BUNDLING[name] }),
  );
  const asset = (await readdir(appDir)).find((file) => file.startsWith('asset.'));
  if (!asset) throw new Error(`CDK produced no bundle for ${name}`);
  const folder = join(appDir, asset);
  const files = (await readdir(folder, { recursive: true })).sort();
  return { folder, files, bytes: (await stat(join(folder, 'index.mjs'))).size };
}

/** The answers of a bundled handler to `events`, in a Node process of its own started outside the project. */
async function answersOf(bundle: Bundled, events: readonly Partial<ApiEvent>[]): Promise<unknown[]> {
  const script =
    'const { handler } = await import(process.env.BUNDLE_URL); const answers = [];' +
    'for (const event of JSON.parse(process.env.EVENTS)) answers.push(await handler(event));' +
    'process.stdout.write(JSON.stringify(answers));';
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH, BUNDLE_URL: pathToFileURL(join(bundle.folder, 'index.mjs')).href, EVENTS: JSON.stringify(events) },
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as unknown[];
}

const assetEvent = (asset: string, acceptEncoding?: string): ApiEvent => ({
  ...apiEvent({ method: 'GET', path: `/api/docs/${asset}`, headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} }),
  pathParameters: { asset },
});

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'docs-bundles-'));
  for (const name of ['api-docs', 'api-docs-asset'] as const) bundled.set(name, await bundle(name));
}, 120_000);

afterAll(async () => {
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

/** Beside every bundle: the function itself and the multipart parser it loads on a multipart body; anything else is Swagger UI's. */
const isSwaggerUiFile = (file: string) => !file.startsWith('index.mjs') && !file.startsWith('multipart.mjs');

describe('Swagger UI for the reference page', () => {
  it('is read where npm installed swagger-ui-dist when the functions run unbundled (npm start, the tests)', async () => {
    expect(swaggerUiFolder()).toBe(installed);
    for (const file of readSwaggerUi()) {
      expect(file.content.equals(await readFile(join(installed, file.file))), file.file).toBe(true);
      expect(file.versionedName).toBe(file.file.replace(/\.(js|css)$/, `.${file.sha256.slice(0, 12)}.$1`));
    }
  });

  it('is linked by the bundled page function, which carries none of it and answers as the local one', async () => {
    const page = bundled.get('api-docs')!;
    expect(page.files.filter(isSwaggerUiFile)).toEqual([]);
    expect(page.bytes).toBeLessThan(10 * 1024);
    const [answer] = await answersOf(page, [apiEvent({ method: 'GET', path: '/api/docs' })]);
    expect(answer).toEqual(await pageHandler());
    expect((answer as { body: string }).body).toContain(`<script src="docs/${swaggerUiLinks().script}"></script>`);
  });

  it('is carried beside the bundled asset function, byte for byte, which answers as the local one', async () => {
    const asset = bundled.get('api-docs-asset')!;
    expect(asset.files.filter(isSwaggerUiFile)).toEqual([
      SWAGGER_UI_ASSET_FOLDER,
      ...SWAGGER_UI_FILES.map(({ file }) => `${SWAGGER_UI_ASSET_FOLDER}/${file}`).sort(),
    ]);
    for (const { file } of SWAGGER_UI_FILES) {
      const copy = await readFile(join(asset.folder, SWAGGER_UI_ASSET_FOLDER, file));
      expect(copy.equals(await readFile(join(installed, file))), file).toBe(true);
    }
    expect(asset.bytes).toBeLessThan(10 * 1024);

    const links = swaggerUiLinks();
    const events = [
      ...[links.script, links.styles].flatMap((name) => [assetEvent(name, 'gzip, deflate, br'), assetEvent(name)]),
      assetEvent('swagger-ui-bundle.js', 'gzip'),
      assetEvent('../package.json'),
    ];
    const answers = await answersOf(asset, events);
    const local = await Promise.all(events.map((event) => assetHandler(event)));
    expect(answers).toHaveLength(local.length);
    answers.forEach((answer, index) => expect(answer, `answer ${index}`).toEqual(local[index]));
    expect(answers[0]).toMatchObject({ statusCode: 200, isBase64Encoded: true, headers: { 'Content-Encoding': 'gzip' } });
    // A name the page does not link is no endpoint (an envelope's fail, as on every unknown path).
    expect(JSON.parse((answers.at(-1) as { body: string }).body)).toMatchObject({ status: 'fail' });
    for (const answer of answers as { body: string }[]) expect(answer.body.length).toBeLessThan(LAMBDA_RESPONSE_LIMIT / 2);

    await mkdir('test-output', { recursive: true });
    await writeFile(
      'test-output/docs-sizes.txt',
      [
        `api-docs bundle: ${bundled.get('api-docs')!.bytes} bytes`,
        `api-docs-asset bundle: ${asset.bytes} bytes, beside it ${SWAGGER_UI_FILES.map(({ file }) => file).join(' and ')}`,
        ...readSwaggerUi().map((file) => `${file.versionedName}: ${file.content.length} bytes`),
        '',
      ].join('\n'),
    );
  });
});
