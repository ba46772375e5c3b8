import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { crc32 } from 'node:zlib';
import { REGION, type Deployment, type PolicyDocument, type VpcEndpoint } from './cloudformation.ts';
import { mergePolicies, type PolicyEvaluator, type Principal } from './iam.ts';
import { isProblem, parsePostForm, verifyPostUpload } from '#infra/local/s3-signatures.ts';

/** An answer of the emulated endpoint. */
export interface Reply {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body: string | Buffer;
}

/** Who signed a request, and with what: the endpoint's record of the credentials it issued. */
export interface Signer {
  readonly principal: Principal;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
}

/** How a request reached S3: directly (a function's SDK), or from a VPC through its S3 gateway endpoint. */
export interface S3Route {
  readonly vpcId: string;
  /** The gateway endpoints of the VPC for S3: their policies apply to every request. */
  readonly endpoints: readonly VpcEndpoint[];
}

interface StoredObject {
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
  readonly lastModified: Date;
}

interface BucketState {
  readonly name: string;
  readonly arn: string;
  readonly policy: PolicyDocument | undefined;
  readonly objects: Map<string, StoredObject>;
  /** The bootstrap's assets bucket: objects are the assembly's file assets, read from cdk.out. */
  readonly assets?: Map<string, { path: string; packaging: string }>;
}

/** A refusal that is no IAM decision (an expired or forged presigned URL, a bad checksum, …). */
export interface S3Refusal {
  readonly principal: string;
  readonly request: string;
  readonly code: string;
  readonly message: string;
}

/** An authorization of the current request's principal: action, resource, purpose, extra condition context. */
type Authorize = (
  action: string,
  resource: string,
  purpose: string,
  context?: Record<string, string>,
) => Promise<{ allowed: boolean; message: string }>;

/** Query parameters that select an S3 operation other than the object ones emulated here. */
const PLAIN_QUERY =
  /^(x-id|x-amz-checksum-mode|response-[a-z-]+|X-Amz-[A-Za-z0-9-]+|x-amz-checksum-[a-z0-9]+|x-amz-sdk-checksum-algorithm)$/;
const MAX_PRESIGNED_SECONDS = 7 * 24 * 60 * 60;

const xml = (status: number, code: string, message: string, extra = ''): Reply => ({
  status,
  headers: { 'content-type': 'application/xml' },
  body: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message>${extra}<RequestId>0000000000000000</RequestId></Error>`,
});

/**
 * S3 as the functions and the grading builds use it: the template's buckets and the bootstrap's
 * assets bucket (its objects are the cloud assembly's file assets), path-style object requests
 * (PutObject, GetObject, HeadObject, DeleteObject) signed in the Authorization header or
 * presigned in the query string. A presigned request acts as the principal whose access key
 * signed it, evaluated when it is used; its signature is checked with the secret the endpoint
 * issued, and it is refused once expired. A request that comes from a VPC through its S3 gateway
 * endpoint is evaluated against the endpoint's policy too.
 */
export class S3Service {
  readonly refusals: S3Refusal[] = [];
  /**
   * Called once an object is stored, before its writer hears back: a test's stand-in for someone
   * who acts at that very moment (an insider overwriting a build's result before the worker reads it).
   */
  afterPut: ((bucket: string, key: string) => Promise<void>) | undefined;
  private readonly buckets = new Map<string, BucketState>();
  private readonly evaluator: PolicyEvaluator;

  constructor(deployment: Deployment, evaluator: PolicyEvaluator) {
    this.evaluator = evaluator;
    for (const bucket of deployment.buckets) {
      this.buckets.set(bucket.name, { name: bucket.name, arn: bucket.arn, policy: mergePolicies(bucket.policies), objects: new Map() });
    }
    for (const asset of deployment.fileAssets) {
      let bucket = this.buckets.get(asset.bucketName);
      if (!bucket) {
        bucket = {
          name: asset.bucketName,
          arn: `arn:aws:s3:::${asset.bucketName}`,
          policy: undefined,
          objects: new Map(),
          assets: new Map(),
        };
        this.buckets.set(asset.bucketName, bucket);
      }
      bucket.assets?.set(asset.objectKey, { path: asset.path, packaging: asset.packaging });
    }
  }

  /** Objects stored now, by `bucket/key` (for checks that the worker cleaned up). */
  storedKeys(): string[] {
    return [...this.buckets.values()].flatMap((bucket) => [...bucket.objects.keys()].map((key) => `${bucket.name}/${key}`));
  }

  /**
   * One request. `signer` is the signer of a header-signed request (checked by the endpoint);
   * presigned requests are authenticated here, from their query string.
   */
  async handle(
    request: IncomingMessage,
    body: Buffer,
    signer: Signer | undefined,
    lookup: (accessKeyId: string) => Signer | undefined,
    route?: S3Route,
  ): Promise<Reply> {
    const url = new URL(request.url ?? '/', 'http://s3');
    const rawPath = (request.url ?? '/').split('?')[0]!;
    const method = request.method ?? 'GET';
    const label = `${method} ${rawPath}`;
    let principal: Principal;
    let presigned = false;
    if (signer) principal = signer.principal;
    else if (url.searchParams.has('X-Amz-Credential')) {
      const checked = this.checkPresigned(request, url, lookup);
      if ('refused' in checked) {
        this.refusals.push({
          principal: checked.principal ?? 'anonymous',
          request: label,
          code: checked.refused.code,
          message: checked.refused.message,
        });
        return xml(403, checked.refused.code, checked.refused.message, checked.refused.extra);
      }
      principal = checked.principal;
      presigned = true;
    } else if (method === 'POST' && /^\/[^/]+\/?$/.test(rawPath) && !url.search) {
      return this.postObject(request, body, rawPath.split('/')[1]!, lookup, route);
    } else {
      this.refusals.push({
        principal: 'anonymous',
        request: label,
        code: 'AccessDenied',
        message: 'An unsigned request (the buckets block public access)',
      });
      return xml(403, 'AccessDenied', 'Access Denied');
    }

    const [, bucketName = '', ...keyParts] = rawPath.split('/');
    const key = keyParts.map((part) => decodeURIComponent(part)).join('/');
    const subresources = [...url.searchParams.keys()].filter((name) => !PLAIN_QUERY.test(name));
    const listing = method === 'GET' && !key && url.searchParams.get('list-type') === '2';
    const deleting = method === 'POST' && !key && subresources.length === 1 && subresources[0] === 'delete';
    const copying = method === 'PUT' && key && subresources.length === 0 && typeof request.headers['x-amz-copy-source'] === 'string';
    if (listing || deleting || copying) {
      const bucket = this.buckets.get(bucketName);
      const how = `${presigned ? 'presigned ' : ''}${route ? 'from a VPC' : 'SDK'}`;
      const may = (action: string, resource: string, purpose: string, context: Record<string, string> = {}) =>
        this.authorize(principal, action, resource, bucket?.policy, route, presigned, `S3 ${purpose} (${how})`, context);
      if (listing) return this.listObjects(bucket, bucketName, url, may);
      if (deleting) return this.deleteObjects(request, body, bucket, bucketName, may);
      return this.copyObject(request, bucket, bucketName, key, may);
    }
    const operation =
      !key || subresources.length > 0 || request.headers['x-amz-copy-source']
        ? undefined
        : ({ PUT: 'PutObject', GET: 'GetObject', HEAD: 'HeadObject', DELETE: 'DeleteObject' } as Record<string, string>)[method];
    if (!operation) {
      const description = `${method} ${bucketName}${key ? '/…' : ''}${subresources.length > 0 ? `?${subresources.join('&')}` : ''}`;
      this.refusals.push({
        principal: principal.label,
        request: label,
        code: 'NotImplemented',
        message: `The deployed-artifact test does not emulate S3 ${description}`,
      });
      return xml(501, 'NotImplemented', `The deployed-artifact test does not emulate S3 ${description}`);
    }
    const bucket = this.buckets.get(bucketName);
    const action = operation === 'HeadObject' ? 's3:GetObject' : `s3:${operation}`;
    const resource = `arn:aws:s3:::${bucketName}/${key}`;
    const how = `${presigned ? 'presigned ' : ''}${route ? `through ${route.endpoints.map((endpoint) => endpoint.logicalId).join(', ') || `VPC ${route.vpcId} (no S3 endpoint)`}` : 'SDK'}`;
    const decision = await this.authorize(principal, action, resource, bucket?.policy, route, presigned, `S3 ${operation} (${how})`);
    if (!decision.allowed) return xml(403, 'AccessDenied', decision.message);
    if (!bucket)
      return xml(404, 'NoSuchBucket', 'The specified bucket does not exist', `<BucketName>${escapeXml(bucketName)}</BucketName>`);

    if (operation === 'PutObject') {
      if (bucket.assets) return xml(403, 'AccessDenied', 'The test keeps the assets bucket as cdk deploy published it');
      const decoded = decodeBody(request, body);
      if ('code' in decoded) {
        this.refusals.push({ principal: principal.label, request: label, code: decoded.code, message: decoded.message });
        return xml(400, decoded.code, decoded.message);
      }
      const object: StoredObject = {
        body: decoded.body,
        contentType: String(request.headers['content-type'] ?? 'binary/octet-stream'),
        etag: `"${createHash('md5').update(decoded.body).digest('hex')}"`,
        lastModified: new Date(),
      };
      bucket.objects.set(key, object);
      await this.afterPut?.(bucket.name, key);
      return { status: 200, headers: { etag: object.etag, 'x-amz-server-side-encryption': 'AES256' }, body: '' };
    }
    if (operation === 'DeleteObject') {
      bucket.objects.delete(key);
      return { status: 204, body: '' };
    }
    const object = bucket.objects.get(key) ?? (await this.assetObject(bucket, key));
    if (!object) {
      // Without s3:ListBucket, S3 does not say whether the key exists: it answers AccessDenied.
      const list = await this.authorize(
        principal,
        's3:ListBucket',
        bucket.arn,
        bucket.policy,
        route,
        presigned,
        `S3 ${operation} of a missing object ${key} (NoSuchKey only with s3:ListBucket)`,
      );
      if (!list.allowed) return xml(403, 'AccessDenied', 'Access Denied');
      return xml(404, 'NoSuchKey', 'The specified key does not exist.', `<Key>${escapeXml(key)}</Key>`);
    }
    const headers = {
      'content-type': object.contentType,
      'content-length': String(object.body.length),
      etag: object.etag,
      'last-modified': object.lastModified.toUTCString(),
      'accept-ranges': 'bytes',
    };
    return { status: 200, headers, body: operation === 'HeadObject' ? '' : object.body };
  }

  /** ListObjectsV2 of a prefix (s3:ListBucket with s3:prefix), every match in one page. */
  private async listObjects(bucket: BucketState | undefined, bucketName: string, url: URL, may: Authorize): Promise<Reply> {
    const prefix = url.searchParams.get('prefix') ?? '';
    const decision = await may('s3:ListBucket', `arn:aws:s3:::${bucketName}`, `ListObjectsV2 ${prefix}`, { 's3:prefix': prefix });
    if (!decision.allowed) return xml(403, 'AccessDenied', decision.message);
    if (!bucket) return xml(404, 'NoSuchBucket', 'The specified bucket does not exist');
    const keys = [...bucket.objects.keys()].filter((key) => key.startsWith(prefix)).sort();
    const contents = keys
      .map((key) => {
        const object = bucket.objects.get(key)!;
        return `<Contents><Key>${escapeXml(key)}</Key><LastModified>${object.lastModified.toISOString()}</LastModified><ETag>${escapeXml(object.etag)}</ETag><Size>${object.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
      })
      .join('');
    return {
      status: 200,
      headers: { 'content-type': 'application/xml' },
      body: `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${escapeXml(bucket.name)}</Name><Prefix>${escapeXml(prefix)}</Prefix><KeyCount>${keys.length}</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>${contents}</ListBucketResult>`,
    };
  }

  /** DeleteObjects: each key as its own s3:DeleteObject; a denied one is an error entry, as S3 answers. */
  private async deleteObjects(
    request: IncomingMessage,
    body: Buffer,
    bucket: BucketState | undefined,
    bucketName: string,
    may: Authorize,
  ): Promise<Reply> {
    const decoded = decodeBody(request, body);
    if ('code' in decoded) return xml(400, decoded.code, decoded.message);
    if (!bucket) return xml(404, 'NoSuchBucket', 'The specified bucket does not exist');
    const text = decoded.body.toString('utf8');
    const quiet = /<Quiet>true<\/Quiet>/.test(text);
    const unescape = (value: string) =>
      value
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&apos;/g, "'")
        .replace(/&amp;/g, '&');
    const keys = [...text.matchAll(/<Key>([^<]*)<\/Key>/g)].map((match) => unescape(match[1]!));
    const entries: string[] = [];
    for (const key of keys) {
      const decision = await may('s3:DeleteObject', `arn:aws:s3:::${bucketName}/${key}`, `DeleteObjects ${key}`);
      if (!decision.allowed) {
        entries.push(`<Error><Key>${escapeXml(key)}</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`);
        continue;
      }
      bucket.objects.delete(key);
      if (!quiet) entries.push(`<Deleted><Key>${escapeXml(key)}</Key></Deleted>`);
    }
    return {
      status: 200,
      headers: { 'content-type': 'application/xml' },
      body: `<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${entries.join('')}</DeleteResult>`,
    };
  }

  /** CopyObject within the template's buckets: s3:GetObject of the source and s3:PutObject of the target. */
  private async copyObject(
    request: IncomingMessage,
    bucket: BucketState | undefined,
    bucketName: string,
    key: string,
    may: Authorize,
  ): Promise<Reply> {
    const source = uriDecode(String(request.headers['x-amz-copy-source']).replace(/^\//, ''));
    const [sourceBucketName = '', ...sourceParts] = source.split('/');
    const sourceKey = sourceParts.join('/');
    const read = await may('s3:GetObject', `arn:aws:s3:::${sourceBucketName}/${sourceKey}`, `CopyObject from ${sourceKey}`);
    if (!read.allowed) return xml(403, 'AccessDenied', read.message);
    const write = await may('s3:PutObject', `arn:aws:s3:::${bucketName}/${key}`, `CopyObject to ${key}`);
    if (!write.allowed) return xml(403, 'AccessDenied', write.message);
    const object = this.buckets.get(sourceBucketName)?.objects.get(sourceKey);
    if (!bucket || !object) return xml(404, 'NoSuchKey', 'The specified key does not exist.', `<Key>${escapeXml(sourceKey)}</Key>`);
    if (bucket.assets) return xml(403, 'AccessDenied', 'The test keeps the assets bucket as cdk deploy published it');
    const copy: StoredObject = { ...object, lastModified: new Date() };
    bucket.objects.set(key, copy);
    await this.afterPut?.(bucket.name, key);
    return {
      status: 200,
      headers: { 'content-type': 'application/xml' },
      body: `<?xml version="1.0" encoding="UTF-8"?>\n<CopyObjectResult><LastModified>${copy.lastModified.toISOString()}</LastModified><ETag>${escapeXml(copy.etag)}</ETag></CopyObjectResult>`,
    };
  }

  /**
   * A browser-based POST upload, checked as S3 does (infra/local/s3-signatures.ts: the policy's
   * signature by known credentials, its expiry, every condition, the file's real size), then as
   * the signer's s3:PutObject of the key under the template's IAM and bucket policy.
   */
  private async postObject(
    request: IncomingMessage,
    body: Buffer,
    bucketName: string,
    lookup: (accessKeyId: string) => Signer | undefined,
    route: S3Route | undefined,
  ): Promise<Reply> {
    const label = `POST /${bucketName}`;
    const form = parsePostForm(request.headers, body);
    if (!form) return xml(400, 'MalformedPOSTRequest', 'The body of your POST request is not well-formed multipart/form-data.');
    const accepted = verifyPostUpload(form, decodeURIComponent(bucketName), (key) => lookup(key)?.secretAccessKey);
    const credential = form.fields.find(([name]) => name.toLowerCase() === 'x-amz-credential')?.[1] ?? '';
    const signer = lookup(credential.split('/')[0] ?? '');
    const refuse = (status: number, code: string, message: string): Reply => {
      this.refusals.push({ principal: signer?.principal.label ?? 'anonymous', request: label, code, message });
      return xml(status, code, message);
    };
    if (isProblem(accepted)) return refuse(accepted.status, accepted.code, accepted.message);
    if (!signer || accepted.sessionToken !== signer.sessionToken)
      return refuse(403, 'InvalidToken', 'The provided token is malformed or otherwise invalid.');
    if (credential.split('/')[2] !== REGION)
      return refuse(400, 'AuthorizationHeaderMalformed', `The region is wrong; expecting '${REGION}'`);
    const bucket = this.buckets.get(decodeURIComponent(bucketName));
    const how = route
      ? `through ${route.endpoints.map((endpoint) => endpoint.logicalId).join(', ') || `VPC ${route.vpcId}`}`
      : 'a browser form';
    const decision = await this.authorize(
      signer.principal,
      's3:PutObject',
      `arn:aws:s3:::${decodeURIComponent(bucketName)}/${accepted.key}`,
      bucket?.policy,
      route,
      'POST',
      `S3 PostObject (${how})`,
    );
    if (!decision.allowed) return xml(403, 'AccessDenied', decision.message);
    if (!bucket) return xml(404, 'NoSuchBucket', 'The specified bucket does not exist');
    if (bucket.assets) return refuse(403, 'AccessDenied', 'The test keeps the assets bucket as cdk deploy published it');
    const object: StoredObject = {
      body: accepted.body,
      contentType: accepted.headers['content-type'] ?? 'binary/octet-stream',
      etag: `"${createHash('md5').update(accepted.body).digest('hex')}"`,
      lastModified: new Date(),
    };
    bucket.objects.set(accepted.key, object);
    await this.afterPut?.(bucket.name, accepted.key);
    const location = `https://${bucket.name}.s3.${REGION}.amazonaws.com/${accepted.key.split('/').map(encodeURIComponent).join('/')}`;
    return {
      status: accepted.status,
      headers: { etag: object.etag, location, 'x-amz-server-side-encryption': 'AES256' },
      body:
        accepted.status === 201
          ? `<?xml version="1.0" encoding="UTF-8"?>\n<PostResponse><Location>${escapeXml(location)}</Location><Bucket>${escapeXml(bucket.name)}</Bucket><Key>${escapeXml(accepted.key)}</Key><ETag>${object.etag}</ETag></PostResponse>`
          : '',
    };
  }

  private authorize(
    principal: Principal,
    action: string,
    resource: string,
    bucketPolicy: PolicyDocument | undefined,
    route: S3Route | undefined,
    presigned: boolean | 'POST',
    purpose: string,
    extraContext: Record<string, string> = {},
  ) {
    // s3:authType as S3 sets it: REST-QUERY-STRING for a presigned request, POST for a browser form, REST-HEADER for a signed header.
    const authType = { 's3:authType': presigned === 'POST' ? 'POST' : presigned ? 'REST-QUERY-STRING' : 'REST-HEADER', ...extraContext };
    return this.evaluator.authorize(principal, action, resource, {
      resourcePolicy: bucketPolicy,
      ...(route
        ? {
            vpcEndpointPolicies: route.endpoints.map((endpoint) => ({
              name: endpoint.logicalId,
              policy: anyPrincipalAsStar(endpoint.policy ?? FULL_ACCESS),
            })),
            context: {
              ...authType,
              'aws:SourceVpc': route.vpcId,
              ...(route.endpoints[0] ? { 'aws:SourceVpce': route.endpoints[0].id } : {}),
            },
          }
        : { context: authType }),
      purpose,
    });
  }

  private async assetObject(bucket: BucketState, key: string): Promise<StoredObject | undefined> {
    const asset = bucket.assets?.get(key);
    if (!asset) return undefined;
    // A folder is published zipped; no function of the template is fetched by its S3 key here.
    if (asset.packaging !== 'file' || !(await stat(asset.path)).isFile()) return undefined;
    const body = await readFile(asset.path);
    return {
      body,
      contentType: 'application/octet-stream',
      etag: `"${createHash('md5').update(body).digest('hex')}"`,
      lastModified: new Date(),
    };
  }

  /** Checks a presigned request as S3 does: known credentials, the signature, the session token, expiry, signed x-amz headers. */
  private checkPresigned(
    request: IncomingMessage,
    url: URL,
    lookup: (accessKeyId: string) => Signer | undefined,
  ): { principal: Principal } | { refused: { code: string; message: string; extra?: string }; principal?: string } {
    const query = url.searchParams;
    const credential = /^([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request$/.exec(query.get('X-Amz-Credential') ?? '');
    if (query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || !credential) {
      return {
        refused: {
          code: 'AuthorizationQueryParametersError',
          message: 'X-Amz-Algorithm and X-Amz-Credential must name AWS4-HMAC-SHA256 and <key>/<date>/<region>/s3/aws4_request.',
        },
      };
    }
    const signer = lookup(credential[1]!);
    if (!signer)
      return { refused: { code: 'InvalidAccessKeyId', message: 'The AWS Access Key Id you provided does not exist in our records.' } };
    const who = signer.principal.label;
    if (query.get('X-Amz-Security-Token') !== signer.sessionToken) {
      return { principal: who, refused: { code: 'InvalidToken', message: 'The provided token is malformed or otherwise invalid.' } };
    }
    const amzDate = query.get('X-Amz-Date') ?? '';
    const signedAt = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
    const expires = Number(query.get('X-Amz-Expires'));
    if (!signedAt || !Number.isInteger(expires) || expires < 1 || expires > MAX_PRESIGNED_SECONDS || !amzDate.startsWith(credential[2]!)) {
      return {
        principal: who,
        refused: {
          code: 'AuthorizationQueryParametersError',
          message: 'X-Amz-Date and X-Amz-Expires must be a SigV4 date of the credential scope and 1 to 604800 seconds.',
        },
      };
    }
    const signed = Date.UTC(
      Number(signedAt[1]),
      Number(signedAt[2]) - 1,
      Number(signedAt[3]),
      Number(signedAt[4]),
      Number(signedAt[5]),
      Number(signedAt[6]),
    );
    if (Date.now() > signed + expires * 1000) {
      return {
        principal: who,
        refused: { code: 'AccessDenied', message: 'Request has expired', extra: `<X-Amz-Expires>${expires}</X-Amz-Expires>` },
      };
    }
    const signedHeaders = (query.get('X-Amz-SignedHeaders') ?? '').split(';').filter(Boolean);
    const unsigned = Object.keys(request.headers).filter((name) => name.startsWith('x-amz-') && !signedHeaders.includes(name));
    if (unsigned.length > 0) {
      return {
        principal: who,
        refused: {
          code: 'AccessDenied',
          message: 'There were headers present in the request which were not signed',
          extra: `<HeadersNotSigned>${unsigned.join(', ')}</HeadersNotSigned>`,
        },
      };
    }
    const rawQuery = (request.url ?? '').includes('?') ? (request.url ?? '').slice((request.url ?? '').indexOf('?') + 1) : '';
    const canonicalQuery = rawQuery
      .split('&')
      .filter(Boolean)
      .map((pair) => {
        const index = pair.indexOf('=');
        const [name, value] = index < 0 ? [pair, ''] : [pair.slice(0, index), pair.slice(index + 1)];
        return [uriDecode(name), uriDecode(value)] as const;
      })
      .filter(([name]) => name !== 'X-Amz-Signature')
      .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
      .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
      .map(([name, value]) => `${name}=${value}`)
      .join('&');
    const canonicalHeaders = signedHeaders
      .map(
        (name) =>
          `${name}:${String(request.headers[name] ?? '')
            .trim()
            .replace(/\s+/g, ' ')}\n`,
      )
      .join('');
    const canonicalRequest = [
      request.method,
      (request.url ?? '/').split('?')[0],
      canonicalQuery,
      canonicalHeaders,
      signedHeaders.join(';'),
      query.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD',
    ].join('\n');
    const scope = `${credential[2]}/${credential[3]}/s3/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
    const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
    const signingKey = hmac(hmac(hmac(hmac(`AWS4${signer.secretAccessKey}`, credential[2]!), credential[3]!), 's3'), 'aws4_request');
    const expected = Buffer.from(createHmac('sha256', signingKey).update(stringToSign).digest('hex'));
    const given = Buffer.from(query.get('X-Amz-Signature') ?? '');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      return {
        principal: who,
        refused: {
          code: 'SignatureDoesNotMatch',
          message: 'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
        },
      };
    }
    if (credential[3] !== REGION) {
      return {
        principal: who,
        refused: {
          code: 'AuthorizationQueryParametersError',
          message: `Error parsing the X-Amz-Credential parameter; the region '${credential[3]}' is wrong; expecting '${REGION}'`,
        },
      };
    }
    return { principal: signer.principal };
  }
}

/**
 * `"Principal": {"AWS": "*"}` (CDK's AnyPrincipal) as `"*"`: the same for IAM, and the only form
 * the evaluator takes in an endpoint policy. Any other principal is left for it to refuse.
 */
export function anyPrincipalAsStar(policy: PolicyDocument): PolicyDocument {
  const statements = Array.isArray(policy.Statement) ? policy.Statement : [policy.Statement];
  return {
    ...policy,
    Statement: statements.map((statement) => {
      const principal = statement.Principal as { AWS?: unknown } | string | undefined;
      const any =
        typeof principal === 'object' &&
        Object.keys(principal).length === 1 &&
        (principal.AWS === '*' || (Array.isArray(principal.AWS) && principal.AWS.length === 1 && principal.AWS[0] === '*'));
      return any ? { ...statement, Principal: '*' } : statement;
    }),
  };
}

/** Every action allowed: what an endpoint without a policy document gets. */
const FULL_ACCESS: PolicyDocument = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: '*', Action: '*', Resource: '*' }] };

/** The object's bytes: aws-chunked bodies decoded; Content-MD5, x-amz-content-sha256 and x-amz-checksum-crc32 checked as S3 does. */
function decodeBody(request: IncomingMessage, raw: Buffer): { body: Buffer } | { code: string; message: string } {
  const contentSha256 = String(request.headers['x-amz-content-sha256'] ?? '');
  const chunked = String(request.headers['content-encoding'] ?? '').includes('aws-chunked') || contentSha256.startsWith('STREAMING-');
  let body = raw;
  const trailers: Record<string, string> = {};
  if (chunked) {
    const parts: Buffer[] = [];
    let offset = 0;
    for (;;) {
      const lineEnd = raw.indexOf('\r\n', offset);
      if (lineEnd < 0) return { code: 'IncompleteBody', message: 'The aws-chunked body ended early.' };
      const size = parseInt(raw.subarray(offset, lineEnd).toString('latin1').split(';')[0]!, 16);
      offset = lineEnd + 2;
      if (size === 0) break;
      parts.push(raw.subarray(offset, offset + size));
      offset += size + 2;
    }
    for (const line of raw.subarray(offset).toString('latin1').split('\r\n')) {
      const index = line.indexOf(':');
      if (index > 0) trailers[line.slice(0, index).trim().toLowerCase()] = line.slice(index + 1).trim();
    }
    body = Buffer.concat(parts);
    const decodedLength = request.headers['x-amz-decoded-content-length'];
    if (decodedLength !== undefined && Number(decodedLength) !== body.length)
      return {
        code: 'IncompleteBody',
        message: 'You did not provide the number of bytes specified by the x-amz-decoded-content-length header.',
      };
  } else if (/^[0-9a-f]{64}$/.test(contentSha256) && createHash('sha256').update(body).digest('hex') !== contentSha256) {
    return { code: 'XAmzContentSHA256Mismatch', message: "The provided 'x-amz-content-sha256' header does not match what was computed." };
  }
  const md5 = request.headers['content-md5'];
  if (typeof md5 === 'string' && createHash('md5').update(body).digest('base64') !== md5)
    return { code: 'BadDigest', message: 'The Content-MD5 you specified did not match what we received.' };
  // Only the header (or trailer): a presigned URL's x-amz-checksum-* query parameter is not checked by S3 (see README).
  const crc = request.headers['x-amz-checksum-crc32'] ?? trailers['x-amz-checksum-crc32'];
  if (typeof crc === 'string') {
    const computed = Buffer.alloc(4);
    computed.writeUInt32BE(crc32(body));
    if (computed.toString('base64') !== crc)
      return { code: 'BadDigest', message: 'The CRC32 you specified did not match the calculated checksum.' };
  }
  return { body };
}

/** SigV4's URI encoding: everything but unreserved characters, as %XX in upper case. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

function uriDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
