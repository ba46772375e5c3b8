import { gunzipSync } from 'node:zlib';
import { swaggerUiAssets } from './swagger-ui-assets.generated.ts';

/** An answer as Lambda returns it to API Gateway. */
export interface AssetAnswer {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly isBase64Encoded?: boolean;
}

interface Asset {
  readonly mediaType: string;
  readonly sha256: string;
  readonly gzip: Buffer;
}

const assets = new Map<string, Asset>(
  Object.entries(swaggerUiAssets).map(([name, asset]) => [
    name,
    { mediaType: asset.mediaType, sha256: asset.sha256, gzip: Buffer.from(asset.gzipBase64, 'base64') },
  ]),
);

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
  const asset = name === undefined ? undefined : assets.get(name);
  if (!asset) return undefined;
  const headers = {
    'Content-Type': asset.mediaType,
    'Cache-Control': 'public, max-age=31536000, immutable',
    ETag: `"${asset.sha256}"`,
    Vary: 'Accept-Encoding',
    'X-Content-Type-Options': 'nosniff',
  };
  if (acceptsGzip(acceptEncoding)) {
    return {
      statusCode: 200,
      headers: { ...headers, 'Content-Encoding': 'gzip' },
      isBase64Encoded: true,
      body: asset.gzip.toString('base64'),
    };
  }
  return { statusCode: 200, headers, body: gunzipSync(asset.gzip).toString('utf8') };
}
