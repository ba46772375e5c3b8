import { createHash } from 'node:crypto';
import { successEnvelope } from './envelope.ts';
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

/** The ETag a success answer carrying `data` gets (conditionalAnswer hashes the rendered envelope). */
export const answerEtag = (data: unknown): string => strongEtag(JSON.stringify(successEnvelope(data)));

/**
 * Whether an If-Match header holds for a representation with `etag` (RFC 9110 §13.1.1: strong
 * comparison, so a weak tag never matches; `*` matches any current representation). Undefined when
 * the header is absent: no precondition.
 */
export function ifMatchHolds(header: string | undefined, etag: string): boolean | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return true;
  return (header.match(/(W\/)?"[^"]*"/g) ?? []).some((candidate) => candidate === etag);
}
