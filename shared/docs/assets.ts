import { gzipSync } from 'node:zlib';
import { readSwaggerUi, type SwaggerUiFile } from './swagger-ui.ts';

/** An answer as Lambda returns it to API Gateway. */
export interface AssetAnswer {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly isBase64Encoded?: boolean;
}

interface Asset extends SwaggerUiFile {
  /** The gzip-compressed content in base64, made at the first answer that asks for it. */
  gzipBase64?: string;
}

let assets: Map<string, Asset> | undefined;

/** Swagger UI's files by versioned name, read once, at the first request (never at import). */
function assetsByName(): Map<string, Asset> {
  assets ??= new Map(readSwaggerUi().map((file) => [file.versionedName, { ...file }]));
  return assets;
}

/** Whether an Accept-Encoding header accepts gzip (named, or `*`, without `q=0`). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((entry) => {
    const [coding = '', ...parameters] = entry.split(';').map((part) => part.trim().toLowerCase());
    const refused = parameters.some((parameter) => /^q=0(\.0{0,3})?$/.test(parameter));
    return (coding === 'gzip' || coding === '*') && !refused;
  });
}

/**
 * The answer for an asset of the reference page, or undefined for a name it does not link. Names
 * are content-addressed, so an answer may be cached for a year; it is gzip-compressed when the
 * client accepts that (every browser does), which keeps it far below Lambda's 6 MB.
 */
export function assetAnswer(name: string | undefined, acceptEncoding: string | undefined): AssetAnswer | undefined {
  const asset = name === undefined ? undefined : assetsByName().get(name);
  if (!asset) return undefined;
  const headers = {
    'Content-Type': asset.mediaType,
    'Cache-Control': 'public, max-age=31536000, immutable',
    ETag: `"${asset.sha256}"`,
    Vary: 'Accept-Encoding',
    'X-Content-Type-Options': 'nosniff',
  };
  if (acceptsGzip(acceptEncoding)) {
    asset.gzipBase64 ??= gzipSync(asset.content, { level: 9 }).toString('base64');
    return { statusCode: 200, headers: { ...headers, 'Content-Encoding': 'gzip' }, isBase64Encoded: true, body: asset.gzipBase64 };
  }
  return { statusCode: 200, headers, body: asset.content.toString('utf8') };
}
