/**
 * What S3 checks before it acts on a request, for the local S3 endpoint (s3-endpoint.ts) and the
 * deployed-artifact test's S3 emulation: Signature Version 4 in the Authorization header or in a
 * presigned URL's query, and a browser-based POST upload's policy (its signature, expiry and every
 * condition, the file's real size against `content-length-range`). Refusals carry S3's own codes
 * and messages, answered as S3's XML error.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** A refusal as S3 answers it. */
export interface S3Problem {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

const problem = (status: number, code: string, message: string): S3Problem => ({ status, code, message });
const isProblem = (value: unknown): value is S3Problem =>
  typeof value === 'object' && value !== null && 'code' in value && 'status' in value;
export { isProblem };

/** S3's XML error document. */
export function s3ErrorXml(refusal: S3Problem): string {
  const escape = (text: string) => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${refusal.code}</Code><Message>${escape(refusal.message)}</Message><RequestId>0000000000000000</RequestId></Error>`;
}

/** The secret of an access key id, or undefined for one the endpoint never issued. */
export type SecretOf = (accessKeyId: string) => string | undefined;

const ALGORITHM = 'AWS4-HMAC-SHA256';
const MAX_SKEW_MS = 15 * 60 * 1000;
const MAX_PRESIGNED_SECONDS = 7 * 24 * 60 * 60;
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256Hex = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

const sameHex = (a: string, b: string): boolean =>
  /^[0-9a-f]{64}$/.test(a) && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** `20250101T120000Z` as a time, or NaN. */
function amzTime(value: string | undefined): number {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (!match) return NaN;
  const [y, mo, d, h, mi, s] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, s);
}

/** The parts of a credential `AKID/date/region/service/aws4_request`, checked against the request's date. */
function credentialScope(
  credential: string | undefined,
  amzDate: string,
  secretOf: SecretOf,
): S3Problem | { accessKeyId: string; secret: string; scope: string; date: string; region: string } {
  const parts = (credential ?? '').split('/');
  const [accessKeyId, date, region, service, terminator] = parts;
  if (parts.length !== 5 || !accessKeyId || !date || !region || service !== 's3' || terminator !== 'aws4_request')
    return problem(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed; the Credential is mal-formed.');
  const secret = secretOf(accessKeyId);
  if (secret === undefined) return problem(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  if (date !== amzDate.slice(0, 8))
    return problem(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
  return { accessKeyId, secret, scope: `${date}/${region}/s3/aws4_request`, date, region };
}

/** RFC 3986 encoding, as SigV4 canonicalizes query names and values. */
const encodeRfc3986 = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function decodeQueryPart(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A request as it arrived: method, the raw path and query (as sent), headers, body. */
export interface SignedRequest {
  readonly method: string;
  /** The request target as sent: `/bucket/key?query`. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** Left out to check the signature before the body is read (payloadProblem checks it then). */
  readonly body?: Buffer;
}

/** The query's parameters, decoded, in order. */
export function queryParameters(url: string): [string, string][] {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  return query
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? [decodeQueryPart(pair), ''] : [decodeQueryPart(pair.slice(0, at)), decodeQueryPart(pair.slice(at + 1))];
    });
}

function canonicalRequest(request: SignedRequest, signedHeaders: readonly string[], payloadHash: string, omit?: string): string {
  const path = request.url.split('?')[0] ?? '/';
  const query = queryParameters(request.url)
    .filter(([name]) => name !== omit)
    .map(([name, value]) => [encodeRfc3986(name), encodeRfc3986(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const headers = signedHeaders.map((name) => {
    const value = request.headers[name];
    const text = Array.isArray(value) ? value.join(',') : (value ?? '');
    return `${name}:${text.trim().replace(/\s+/g, ' ')}\n`;
  });
  return [request.method, path, query, headers.join(''), signedHeaders.join(';'), payloadHash].join('\n');
}

/** Who signed a request that S3 would accept. */
export interface VerifiedSigner {
  readonly accessKeyId: string;
  /** The session token the request carries (header or query), if any. */
  readonly sessionToken?: string;
}

/**
 * Checks a SigV4 request (Authorization header or presigned query): the signature over the
 * canonical request, the clock skew of a header-signed request, a presigned URL's expiry, and the
 * declared payload hash against the body. A request with no signature at all is refused: the
 * bucket has no public access.
 */
export function verifySignedRequest(request: SignedRequest, secretOf: SecretOf, now = Date.now()): S3Problem | VerifiedSigner {
  const authorization = request.headers.authorization;
  const query = new Map(queryParameters(request.url));
  if (authorization !== undefined) {
    const match = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(
      authorization.trim(),
    );
    if (!match) return problem(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed.');
    const amzDate = String(request.headers['x-amz-date'] ?? '');
    const time = amzTime(amzDate);
    if (Number.isNaN(time)) return problem(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
    if (Math.abs(now - time) > MAX_SKEW_MS)
      return problem(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
    const payloadHash = String(request.headers['x-amz-content-sha256'] ?? '');
    if (!payloadHash) return problem(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
    const payload = request.body === undefined ? undefined : payloadProblem(request.headers, request.body);
    if (payload) return payload;
    const [, credential = '', signedList = '', provided = ''] = match;
    const signedHeaders = signedList.split(';');
    if (!signedHeaders.includes('host'))
      return problem(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed; host must be signed.');
    const scope = credentialScope(credential, amzDate, secretOf);
    if (isProblem(scope)) return scope;
    const expected = signature(scope, amzDate, canonicalRequest(request, signedHeaders, payloadHash));
    if (!sameHex(provided, expected))
      return problem(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      );
    const token = request.headers['x-amz-security-token'];
    return { accessKeyId: scope.accessKeyId, ...(typeof token === 'string' ? { sessionToken: token } : {}) };
  }
  if (query.has('X-Amz-Signature') || query.has('X-Amz-Algorithm')) {
    if (query.get('X-Amz-Algorithm') !== ALGORITHM)
      return problem(400, 'AuthorizationQueryParametersError', 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
    const amzDate = query.get('X-Amz-Date') ?? '';
    const time = amzTime(amzDate);
    const expires = Number(query.get('X-Amz-Expires'));
    const provided = query.get('X-Amz-Signature') ?? '';
    const signedHeaders = (query.get('X-Amz-SignedHeaders') ?? '').split(';');
    if (Number.isNaN(time) || !Number.isSafeInteger(expires) || expires < 1 || !provided || !signedHeaders.includes('host'))
      return problem(
        400,
        'AuthorizationQueryParametersError',
        'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
      );
    if (expires > MAX_PRESIGNED_SECONDS)
      return problem(
        400,
        'AuthorizationQueryParametersError',
        'X-Amz-Expires must be less than a week (in seconds); that is, the given X-Amz-Expires must be less than 604800 seconds',
      );
    if (now > time + expires * 1000) return problem(403, 'AccessDenied', 'Request has expired');
    if (time > now + MAX_SKEW_MS) return problem(403, 'AccessDenied', 'Request is not valid yet');
    const scope = credentialScope(query.get('X-Amz-Credential'), amzDate, secretOf);
    if (isProblem(scope)) return scope;
    const payloadHash = String(request.headers['x-amz-content-sha256'] ?? 'UNSIGNED-PAYLOAD');
    const expected = signature(scope, amzDate, canonicalRequest(request, signedHeaders, payloadHash, 'X-Amz-Signature'));
    if (!sameHex(provided, expected))
      return problem(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      );
    const token = query.get('X-Amz-Security-Token');
    return { accessKeyId: scope.accessKeyId, ...(token ? { sessionToken: token } : {}) };
  }
  return problem(403, 'AccessDenied', 'Access Denied');
}

/** The body against the hash a header-signed request declares for it (`x-amz-content-sha256`), as S3 checks it once read. */
export function payloadProblem(headers: IncomingHttpHeaders, body: Buffer): S3Problem | undefined {
  const payloadHash = String(headers['x-amz-content-sha256'] ?? '');
  if (headers.authorization !== undefined && /^[0-9a-f]{64}$/.test(payloadHash) && payloadHash !== sha256Hex(body))
    return problem(400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.");
  return undefined;
}

function signature(scope: { secret: string; scope: string; date: string; region: string }, amzDate: string, canonical: string): string {
  const stringToSign = [ALGORITHM, amzDate, scope.scope, sha256Hex(canonical)].join('\n');
  return createHmac('sha256', signingKey(scope.secret, scope.date, scope.region, 's3'))
    .update(stringToSign, 'utf8')
    .digest('hex');
}

// --- Browser-based POST uploads ----------------------------------------------------------------

/** A multipart POST form: its fields in order up to the file (S3 ignores what follows it), and the file. */
export interface PostForm {
  readonly fields: readonly (readonly [string, string])[];
  readonly file?: { readonly fileName: string; readonly body: Buffer };
}

/**
 * The fields of a multipart form up to its file, read from the form's beginning `head`: the fields,
 * and where the file's content starts in `head` (`end` marks the form's end without a file);
 * `incomplete` when `head` ends before the file's content starts; undefined when it is no form.
 */
export type PostFormHead =
  | {
      readonly fields: readonly (readonly [string, string])[];
      readonly file?: { readonly fileName: string; readonly start: number };
      readonly delimiter: Buffer;
    }
  | 'incomplete';

export function parsePostFormHead(headers: IncomingHttpHeaders, head: Buffer): PostFormHead | undefined {
  const type = String(headers['content-type'] ?? '');
  const boundary = /^multipart\/form-data;.*\bboundary=(?:"([^"]+)"|([^\s;]+))/i.exec(type);
  const marker = boundary?.[1] ?? boundary?.[2];
  if (!marker) return undefined;
  const delimiter = Buffer.from(`\r\n--${marker}`);
  const fields: (readonly [string, string])[] = [];
  let at = head.indexOf(delimiter.subarray(2));
  if (at < 0) return head.length < delimiter.length ? 'incomplete' : undefined;
  at += delimiter.length - 2;
  for (;;) {
    if (head.length < at + 2) return 'incomplete';
    if (head.subarray(at, at + 2).toString() === '--') return { fields, delimiter };
    if (head.subarray(at, at + 2).toString() !== '\r\n') return undefined;
    const headerEnd = head.indexOf('\r\n\r\n', at + 2);
    if (headerEnd < 0) return 'incomplete';
    const partHeaders = head.subarray(at + 2, headerEnd).toString('utf8');
    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(partHeaders)?.[1] ?? '';
    const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
    const fileName = /;\s*filename="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) return undefined;
    // S3 reads the fields up to the file and ignores whatever follows it.
    if (name.toLowerCase() === 'file') return { fields, file: { fileName: fileName ?? '', start: headerEnd + 4 }, delimiter };
    const next = head.indexOf(delimiter, headerEnd + 4);
    if (next < 0) return 'incomplete';
    fields.push([name, head.subarray(headerEnd + 4, next).toString('utf8')]);
    at = next + delimiter.length;
  }
}

/** The form of a whole multipart body; undefined when it is not one (no boundary, malformed parts). */
export function parsePostForm(headers: IncomingHttpHeaders, body: Buffer): PostForm | undefined {
  const head = parsePostFormHead(headers, body);
  if (head === undefined || head === 'incomplete') return undefined;
  if (!head.file) return { fields: head.fields };
  const end = body.indexOf(head.delimiter, head.file.start);
  if (end < 0) return undefined;
  return { fields: head.fields, file: { fileName: head.file.fileName, body: Buffer.from(body.subarray(head.file.start, end)) } };
}

/** What a POST that passed every check stores: the key, and the headers it is stored with. */
export interface AcceptedPost {
  readonly key: string;
  readonly accessKeyId: string;
  readonly sessionToken?: string;
  /** Content-Type and x-amz-meta-* fields, as the object's headers. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** `success_action_status`: 200, 201 or (default) 204. */
  readonly status: number;
}

/** Fields S3 never asks a condition for. */
const UNCONDITIONED = new Set(['policy', 'x-amz-signature', 'file']);

/**
 * Checks a browser-based POST upload to `bucket` as S3 does: a policy signed (SigV4) by a known
 * key, not expired, each of its conditions met by the form (the bucket by the one posted to, the
 * key after `${filename}` is replaced, `content-length-range` by the file's real size), and no
 * field that no condition covers.
 */
export function verifyPostUpload(form: PostForm, bucket: string, secretOf: SecretOf, now = Date.now()): S3Problem | AcceptedPost {
  const policy = verifyPostPolicy(form.fields, form.file?.fileName, bucket, secretOf, now);
  if (isProblem(policy)) return policy;
  const body = form.file?.body ?? Buffer.alloc(0);
  const tooLarge = sizeProblem(policy.range, body.length);
  if (tooLarge) return tooLarge;
  const { range: _range, ...accepted } = policy;
  return { ...accepted, body };
}

/** The file's size against the policy's `content-length-range`. */
export function sizeProblem(range: { min: number; max: number } | undefined, size: number): S3Problem | undefined {
  if (range && size > range.max) return problem(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
  if (range && size < range.min) return problem(400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size');
  return undefined;
}

/** A POST upload whose fields passed every check: what it stores, once its file's size is within `range`. */
export interface AcceptedPolicy extends Omit<AcceptedPost, 'body'> {
  /** The policy's `content-length-range`, if it has one. */
  readonly range?: { readonly min: number; readonly max: number };
}

/**
 * verifyPostUpload's checks of everything but the file's size, made on the fields before the
 * file (`fileName`: the file part's name; undefined: the form has no file), so that a refused
 * upload's file is never read.
 */
export function verifyPostPolicy(
  formFields: PostForm['fields'],
  fileName: string | undefined,
  bucket: string,
  secretOf: SecretOf,
  now = Date.now(),
): S3Problem | AcceptedPolicy {
  const fields = new Map<string, string>();
  for (const [name, value] of formFields) {
    if (fields.has(name.toLowerCase())) return problem(400, 'InvalidArgument', `Bucket POST may contain only one field named ${name}`);
    fields.set(name.toLowerCase(), value);
  }
  if (fileName === undefined) return problem(400, 'InvalidArgument', 'POST requires exactly one file upload per request.');
  const rawKey = fields.get('key');
  if (rawKey === undefined || rawKey === '')
    return problem(
      400,
      'InvalidArgument',
      "Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields.",
    );
  const key = rawKey.replaceAll('${filename}', fileName);
  fields.set('key', key);
  const policy = fields.get('policy');
  const provided = fields.get('x-amz-signature');
  if (policy === undefined || provided === undefined) return problem(403, 'AccessDenied', 'Access Denied');
  if (fields.get('x-amz-algorithm') !== ALGORITHM)
    return problem(400, 'InvalidArgument', 'POST form fields must name the signing algorithm AWS4-HMAC-SHA256 (x-amz-algorithm).');
  const amzDate = fields.get('x-amz-date') ?? '';
  if (Number.isNaN(amzTime(amzDate))) return problem(400, 'InvalidArgument', 'x-amz-date must be in the ISO8601 Long Format');
  const scope = credentialScope(fields.get('x-amz-credential'), amzDate, secretOf);
  if (isProblem(scope)) return scope;
  const expected = createHmac('sha256', signingKey(scope.secret, scope.date, scope.region, 's3'))
    .update(policy, 'utf8')
    .digest('hex');
  if (!sameHex(provided, expected))
    return problem(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    );

  let document: { expiration?: unknown; conditions?: unknown };
  try {
    document = JSON.parse(Buffer.from(policy, 'base64').toString('utf8')) as typeof document;
  } catch {
    return problem(400, 'InvalidPolicyDocument', 'Invalid Policy: Invalid JSON.');
  }
  const expiration = typeof document.expiration === 'string' ? Date.parse(document.expiration) : NaN;
  if (Number.isNaN(expiration)) return problem(400, 'InvalidPolicyDocument', 'Invalid Policy: Policy missing expiration.');
  if (now >= expiration) return problem(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.');
  if (!Array.isArray(document.conditions)) return problem(400, 'InvalidPolicyDocument', 'Invalid Policy: Policy missing conditions.');

  const valueOf = (field: string): string | undefined => (field === 'bucket' ? bucket : fields.get(field));
  const covered = new Set<string>(['bucket']);
  let range: { min: number; max: number } | undefined;
  const failed = (condition: unknown) =>
    problem(403, 'AccessDenied', `Invalid according to Policy: Policy Condition failed: ${JSON.stringify(condition)}`);
  for (const condition of document.conditions as unknown[]) {
    if (Array.isArray(condition)) {
      const [operator, first, second] = condition as unknown[];
      if (operator === 'content-length-range') {
        const [min, max] = [Number(first), Number(second)];
        if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min < 0 || max < min)
          return problem(400, 'InvalidPolicyDocument', 'Invalid Policy: Invalid content-length-range.');
        range = { min, max };
        continue;
      }
      if (
        (operator !== 'eq' && operator !== 'starts-with') ||
        typeof first !== 'string' ||
        !first.startsWith('$') ||
        typeof second !== 'string'
      )
        return problem(400, 'InvalidPolicyDocument', `Invalid Policy: Invalid Condition: ${JSON.stringify(condition)}`);
      const field = first.slice(1).toLowerCase();
      covered.add(field);
      const value = valueOf(field);
      if (value === undefined || (operator === 'eq' ? value !== second : !value.startsWith(second))) return failed(condition);
    } else if (condition && typeof condition === 'object') {
      const entries = Object.entries(condition);
      const [name, expectedValue] = entries[0] ?? [];
      if (entries.length !== 1 || name === undefined || typeof expectedValue !== 'string')
        return problem(400, 'InvalidPolicyDocument', `Invalid Policy: Invalid Simple-Condition: ${JSON.stringify(condition)}`);
      const field = name.toLowerCase();
      covered.add(field);
      if (valueOf(field) !== expectedValue) return failed(['eq', `$${name}`, expectedValue]);
    } else {
      return problem(400, 'InvalidPolicyDocument', `Invalid Policy: Invalid Condition: ${JSON.stringify(condition)}`);
    }
  }
  const extra = [...fields.keys()].filter((name) => !UNCONDITIONED.has(name) && !name.startsWith('x-ignore-') && !covered.has(name));
  if (extra.length > 0) return problem(403, 'AccessDenied', `Invalid according to Policy: Extra input fields: ${extra.join(', ')}`);

  const headers: Record<string, string> = {};
  for (const [name, value] of fields) {
    if (name === 'content-type' || name === 'cache-control' || name === 'content-disposition' || name.startsWith('x-amz-meta-'))
      headers[name] = value;
  }
  const requested = Number(fields.get('success_action_status'));
  const token = fields.get('x-amz-security-token');
  return {
    key,
    accessKeyId: scope.accessKeyId,
    ...(token ? { sessionToken: token } : {}),
    headers,
    status: requested === 200 || requested === 201 ? requested : 204,
    ...(range ? { range } : {}),
  };
}
