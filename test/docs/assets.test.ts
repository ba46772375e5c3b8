import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ASSETS_MODULE, MANIFEST_MODULE, manifestModule, sourceAssets, swaggerUiVersion } from '#infra/docs-assets.ts';
import { swaggerUiAssets } from '#shared/docs/swagger-ui-assets.generated.ts';

/** Lambda's limit on a function's answer; API Gateway passes nothing larger. */
const LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024;

describe('the generated reference page assets', () => {
  it('are Swagger UI as installed, byte for byte (run `npm run docs` after updating swagger-ui-dist)', async () => {
    const sources = await sourceAssets();
    expect(await readFile(MANIFEST_MODULE, 'utf8'), `${MANIFEST_MODULE} is stale: run npm run docs`).toBe(
      manifestModule(sources, swaggerUiVersion()),
    );
    expect(Object.keys(swaggerUiAssets).sort(), `${ASSETS_MODULE} is stale: run npm run docs`).toEqual(
      sources.map((source) => source.versionedName).sort(),
    );
    for (const source of sources) {
      const asset = swaggerUiAssets[source.versionedName]!;
      const content = gunzipSync(Buffer.from(asset.gzipBase64, 'base64'));
      expect(createHash('sha256').update(content).digest('hex'), `${source.file} in ${ASSETS_MODULE}`).toBe(source.sha256);
      expect(asset).toMatchObject({ sha256: source.sha256, bytes: source.content.length, mediaType: source.mediaType });
    }
  });

  it('bundle into the asset function only, which stays far below Lambda’s limits', async () => {
    const bundle = (entry: string) =>
      build({
        entryPoints: [entry],
        bundle: true,
        platform: 'node',
        format: 'esm',
        minify: true,
        write: false,
        metafile: true,
        logLevel: 'silent',
      });
    const [page, asset] = await Promise.all([bundle('functions/api-docs/handler.ts'), bundle('functions/api-docs-asset/handler.ts')]);
    const size = (result: Awaited<ReturnType<typeof bundle>>) => result.outputFiles[0]!.contents.length;
    expect(Object.keys(page.metafile.inputs).filter((input) => input.includes('generated'))).toEqual([MANIFEST_MODULE]);
    expect(size(page)).toBeLessThan(10 * 1024);
    expect(size(asset)).toBeLessThan(LAMBDA_RESPONSE_LIMIT / 4);
    await mkdir('test-output', { recursive: true });
    await writeFile(
      'test-output/docs-sizes.txt',
      [
        `api-docs bundle: ${size(page)} bytes`,
        `api-docs-asset bundle: ${size(asset)} bytes`,
        ...Object.entries(swaggerUiAssets).map(
          ([name, entry]) => `${name}: ${entry.bytes} bytes, ${Buffer.from(entry.gzipBase64, 'base64').length} gzip`,
        ),
        '',
      ].join('\n'),
    );
  });
});
