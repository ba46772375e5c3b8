import { createHash } from 'node:crypto';
import type { ApiResult } from './types.ts';

/** A strong validator of a representation: the SHA-256 of its body, base64url, quoted. */
export const strongEtag = (body: string): string => `"${createHash('sha256').update(body).digest('base64url')}"`;

/**
 * Whether an If-None-Match header names `etag` (RFC 9110 §13.1.2: weak comparison, so `W/"x"`
 * matches `"x"`; `*` matches any current representation).
 */
export function noneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return (header.match(/(W\/)?"[^"]*"/g) ?? []).some((candidate) => candidate.replace(/^W\//, '') === opaque);
}

/**
 * A success answer with its ETag; `304 Not Modified` without a body instead when the request's
 * If-None-Match names it. Only a request that sends If-None-Match can get a 304, so clients that
 * expect every answer to be an envelope never see one.
 */
export function conditionalAnswer(result: ApiResult, ifNoneMatch: string | undefined): ApiResult {
  if ((result.statusCode ?? 200) !== 200 || typeof result.body !== 'string') return result;
  const etag = strongEtag(result.body);
  const headers = { ...result.headers, ETag: etag };
  if (!noneMatchHits(ifNoneMatch, etag)) return { ...result, headers };
  const kept: Record<string, string | number | boolean> = { ...headers };
  delete kept['Content-Type'];
  return { statusCode: 304, headers: kept };
}
