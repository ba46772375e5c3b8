/**
 * The first thing a grading build runs: it reads its job's input from the jobs bucket with the
 * build's own role credentials (CodeBuild's container credentials endpoint), so the build's
 * definition needs to carry nothing but what the project and CodeBuild already say. The key is made
 * of the build's own ARN, which the build role's policy names through CodeBuild's
 * `${codebuild:buildArn}` variable: a build may read its own input and no other.
 *
 * Self-contained (node:crypto, fetch and node:fs only, no package): the stack embeds this file,
 * stripped of its types, in the buildspec, and the image's Node (the harness's) runs it. The
 * request is signed here, in memory; neither the credentials nor the signed URL are written to the
 * disk, the environment or the log.
 */
import { createHash, createHmac } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';

/** The objects of a build's `slot`th job (1, 2, …) in the jobs bucket, named by the build that runs it. */
export const jobKeys = (buildArn: string, slot: number) => ({
  input: `jobs/${buildArn}/${slot}/input.tgz`,
  result: `jobs/${buildArn}/${slot}/result.json`,
});

/** The input the worker puts in a slot when the build has no further job: the build ends. */
export const END_OF_JOBS = 'end of jobs';

export interface RoleCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
}

export interface PresignRequest {
  readonly method: 'GET' | 'PUT';
  readonly bucket: string;
  readonly key: string;
  readonly region: string;
  readonly credentials: RoleCredentials;
  /** An S3 endpoint to address path-style (`AWS_ENDPOINT_URL_S3`); S3's own virtual-hosted address otherwise. */
  readonly endpoint?: string | undefined;
  readonly now: Date;
  readonly expiresSeconds: number;
  /** Further query parameters to sign with the request. */
  readonly query?: Readonly<Record<string, string>>;
}

const encode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();

/** An S3 URL signed with AWS Signature Version 4 in its query string, as the SDK's presigner makes it. */
export function presignS3(request: PresignRequest): string {
  const { credentials, region } = request;
  const path = request.key.split('/').map(encode).join('/');
  const base = request.endpoint ? new URL(request.endpoint) : new URL(`https://${request.bucket}.s3.${region}.amazonaws.com`);
  const canonicalUri = request.endpoint ? `/${encode(request.bucket)}/${path}` : `/${path}`;
  const amzDate = request.now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const scope = `${amzDate.slice(0, 8)}/${region}/s3/aws4_request`;
  const query: Record<string, string> = {
    ...request.query,
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD',
    'X-Amz-Credential': `${credentials.accessKeyId}/${scope}`,
    'X-Amz-Date': amzDate,
    'X-Amz-Expires': String(request.expiresSeconds),
    ...(credentials.sessionToken ? { 'X-Amz-Security-Token': credentials.sessionToken } : {}),
    'X-Amz-SignedHeaders': 'host',
  };
  const canonicalQuery = Object.entries(query)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${encode(name)}=${encode(value)}`)
    .join('&');
  const canonicalRequest = [request.method, canonicalUri, canonicalQuery, `host:${base.host}`, '', 'host', 'UNSIGNED-PAYLOAD'].join('\n');
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  let key: Buffer = hmac(`AWS4${credentials.secretAccessKey}`, amzDate.slice(0, 8));
  for (const part of [region, 's3', 'aws4_request']) key = hmac(key, part);
  const signature = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  return `${base.protocol}//${base.host}${canonicalUri}?${canonicalQuery}&X-Amz-Signature=${signature}`;
}

type Environment = Readonly<Record<string, string | undefined>>;

/** The build role's credentials, from the container credentials endpoint CodeBuild gives the build. */
export async function containerCredentials(environment: Environment): Promise<RoleCredentials> {
  const relative = environment.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI;
  const url = relative ? `http://169.254.170.2${relative}` : (environment.AWS_CONTAINER_CREDENTIALS_FULL_URI ?? '');
  const tokenFile = environment.AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE;
  const token = tokenFile ? (await readFile(tokenFile, 'utf8')).trim() : environment.AWS_CONTAINER_AUTHORIZATION_TOKEN;
  const answer = await fetch(url, { headers: token ? { Authorization: token } : {}, signal: AbortSignal.timeout(10_000) });
  if (!answer.ok) throw new Error(`The container credentials endpoint answered HTTP ${answer.status}`);
  const body = (await answer.json()) as { AccessKeyId?: string; SecretAccessKey?: string; Token?: string };
  if (!body.AccessKeyId || !body.SecretAccessKey) throw new Error('The container credentials endpoint answered no credentials');
  return { accessKeyId: body.AccessKeyId, secretAccessKey: body.SecretAccessKey, sessionToken: body.Token };
}

/**
 * Reads the input of this build's `slot`th job into `target`, or answers `end` when the worker put
 * END_OF_JOBS there. The worker puts each input once CodeBuild has named the build, and the next
 * one while the build runs a job, so a missing input (S3 answers 403 without s3:ListBucket) is
 * waited for, up to `waitMs`. Failures name S3's error code only: its message may quote the signed
 * request.
 */
export async function fetchJobInput(
  target: string,
  slot: number,
  environment: Environment = process.env,
  waitMs = 180_000,
): Promise<'job' | 'end'> {
  const { JOBS_BUCKET: bucket, CODEBUILD_BUILD_ARN: buildArn } = environment;
  const region = environment.AWS_REGION ?? environment.AWS_DEFAULT_REGION;
  if (!Number.isInteger(slot) || slot < 1) throw new Error(`No job slot ${slot}`);
  if (!bucket || !buildArn || !region) throw new Error('The build needs JOBS_BUCKET, CODEBUILD_BUILD_ARN and AWS_REGION');
  if (!environment.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI && !environment.AWS_CONTAINER_CREDENTIALS_FULL_URI)
    throw new Error('The build has no container credentials endpoint');
  const deadline = Date.now() + waitMs;
  for (;;) {
    let problem: string;
    try {
      const url = presignS3({
        method: 'GET',
        bucket,
        key: jobKeys(buildArn, slot).input,
        region,
        credentials: await containerCredentials(environment),
        endpoint: environment.AWS_ENDPOINT_URL_S3,
        now: new Date(),
        expiresSeconds: 60,
      });
      const answer = await fetch(url, { signal: AbortSignal.timeout(300_000) });
      if (answer.ok) {
        const body = Buffer.from(await answer.arrayBuffer());
        if (body.toString('utf8') === END_OF_JOBS) return 'end';
        await writeFile(target, body, { mode: 0o600 });
        return 'job';
      }
      const code = /<Code>([^<]*)<\/Code>/.exec(await answer.text())?.[1] ?? 'no error code';
      problem = `S3 answered HTTP ${answer.status} (${code})`;
      if (answer.status !== 403 && answer.status !== 404) throw new Error(`The job's input could not be read: ${problem}`);
    } catch (error) {
      if (String((error as Error).message).startsWith("The job's input")) throw error;
      problem = (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`The job's input could not be read: ${problem}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
