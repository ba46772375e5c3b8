import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, assetAnswer } from '#shared/docs/assets.ts';
import { CONTENT_SECURITY_POLICY, referencePage } from '#shared/docs/page.ts';
import { swaggerUiLinks } from '#shared/docs/swagger-ui.ts';

const swaggerUi = swaggerUiLinks();

describe('the reference page', () => {
  it('links its versioned assets and the document with relative URLs only', () => {
    const page = referencePage();
    expect(page).toContain(`<script src="docs/${swaggerUi.script}"></script>`);
    expect(page).toContain(`<link rel="stylesheet" href="docs/${swaggerUi.styles}">`);
    expect(page).toContain("url: 'openapi.json'");
    expect(page).toContain('validatorUrl: null');
    expect(page.match(/(src|href)="[a-z]+:\/\//g)).toBeNull();
  });

  it('allows exactly its own inline script and nothing from elsewhere', () => {
    const inline = /<script>([\s\S]*?)<\/script>/.exec(referencePage())![1]!;
    const hash = createHash('sha256').update(inline).digest('base64');
    expect(CONTENT_SECURITY_POLICY).toContain(`script-src 'self' 'sha256-${hash}'`);
    expect(CONTENT_SECURITY_POLICY).toContain("connect-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/https?:/);
  });
});

describe('its assets', () => {
  it('are served gzip-compressed to clients that accept it, as is otherwise, cacheable for a year', () => {
    const compressed = assetAnswer(swaggerUi.script, 'gzip, deflate, br')!;
    expect(compressed).toMatchObject({
      statusCode: 200,
      isBase64Encoded: true,
      headers: {
        'Content-Type': 'text/javascript; charset=utf-8',
        'Content-Encoding': 'gzip',
        'Cache-Control': 'public, max-age=31536000, immutable',
        Vary: 'Accept-Encoding',
      },
    });
    const script = gunzipSync(Buffer.from(compressed.body!, 'base64')).toString('utf8');
    expect(script).toContain('SwaggerUIBundle');
    const plain = assetAnswer(swaggerUi.script, undefined)!;
    expect(plain.headers).not.toHaveProperty('Content-Encoding');
    expect(plain.body).toBe(script);
    expect(assetAnswer(swaggerUi.styles, 'gzip')!.headers).toMatchObject({ 'Content-Type': 'text/css; charset=utf-8' });
  });

  it('stay far below Lambda’s 6 MB response limit', () => {
    for (const name of [swaggerUi.script, swaggerUi.styles]) {
      expect(assetAnswer(name, 'gzip')!.body!.length).toBeLessThan(1024 * 1024);
      expect(assetAnswer(name, undefined)!.body!.length).toBeLessThan(4 * 1024 * 1024);
    }
  });

  it('are only those the page links', () => {
    expect(assetAnswer('swagger-ui-bundle.js', 'gzip')).toBeUndefined();
    expect(assetAnswer('../package.json', 'gzip')).toBeUndefined();
    expect(assetAnswer('constructor', 'gzip')).toBeUndefined();
    expect(assetAnswer(undefined, 'gzip')).toBeUndefined();
  });

  it('read Accept-Encoding with its q-values', () => {
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('br;q=1.0, gzip;q=0.8')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip('')).toBe(false);
  });
});
