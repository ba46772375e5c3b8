import type { Node } from 'constructs';
import { isCorsOrigin } from '#shared/config.ts';
import { CURATED_IMAGE, ecrImage } from '#shared/grading/builds/images.ts';

/** What varies between deployments, from CDK context (`cdk.json` or `-c key=value`). */
export interface DeploymentSettings {
  /** `stage`: names the stack; `prod` keeps the data when the stack or a table is deleted. */
  readonly stage: string;
  readonly production: boolean;
  /** `corsOrigins`: browser origins allowed to call the API (comma list or array); none: no CORS. */
  readonly corsOrigins: readonly string[];
  /** `throttleRate` / `throttleBurst`: the API stage's steady requests per second and burst. */
  readonly throttleRate: number;
  readonly throttleBurst: number;
  /**
   * `summariesSchedule` / `summariesTimeZone`: when the nightly run regenerates the grade summaries
   * of every unarchived course, as an EventBridge Scheduler `cron(…)` or `rate(…)` expression read
   * in an IANA time zone.
   */
  readonly summariesSchedule: string;
  readonly summariesTimeZone: string;
  /**
   * `allowedGitHosts`: hosts (`host` or `host:port`, comma list or array) the grading worker (and
   * `submit-vcs`, which reads the repository's head, and the summaries worker, which checks a
   * repository version out for a similarity run) may fetch repositories from although they
   * resolve to private addresses, e.g. a campus git server (their `ALLOWED_GIT_HOSTS`).
   */
  readonly allowedGitHosts: readonly string[];
  /**
   * `gradingImages`: the build images gradeables may name in `autograding.image`, as
   * `name=image` pairs (comma list, or an object in cdk.json); `default` is used when a gradeable
   * names none. CodeBuild's curated images (`aws/codebuild/…`, by tag), or images of this
   * account's ECR pinned by digest (`<account>.dkr.ecr.<region>.amazonaws.com/<repository>@sha256:…`):
   * a digest names the very bytes a build runs, which a grading record can then state. Nothing
   * else: a tag of a registry can be moved, and another registry would need a way out of the sandbox.
   */
  readonly gradingImages: Readonly<Record<string, string>>;
  /** `gradingConcurrency`: grading jobs that run at once; more wait in the queue. */
  readonly gradingConcurrency: number;
  /**
   * `submissionRetentionDays`: days the submitted files of a term are kept, by term id
   * (`{"f25": 400}` in cdk.json, or `f25=400,s26=400`); a term not named is kept until deleted.
   */
  readonly submissionRetentionDays: Readonly<Record<string, number>>;
  /**
   * `similarityFingerprintDays`: days a files version's similarity fingerprints are kept
   * (`fingerprints/` of the submissions bucket), for later terms' reports to compare with.
   */
  readonly similarityFingerprintDays: number;
  /**
   * `gradingFleet`: machines of a CodeBuild reserved-capacity fleet the grading builds run on
   * (builds start in seconds instead of about a minute; billed while the fleet exists, used or
   * not; more builds than machines overflow to on-demand); 0 (the default): on-demand only.
   */
  readonly gradingFleet: number;
  /** `alarmEmail`: an address subscribed to the alarm topic (it must confirm the subscription). */
  readonly alarmEmail?: string;
}

export const DEFAULT_STAGE = 'dev';
/**
 * Each route's steady rate and burst (the stage's default route settings): a deadline rush of 1,000
 * students submitting at once, or 1,000 editors polling every two seconds, fits with room to spare;
 * a flood beyond it gets 429 from API Gateway instead of reaching the functions. The account's
 * own API Gateway quota (10,000 a second, bursts of 5,000 by default) is shared by all routes.
 */
export const DEFAULT_THROTTLE_RATE = 1_000;
export const DEFAULT_THROTTLE_BURST = 2_000;
export const DEFAULT_SUMMARIES_SCHEDULE = 'cron(0 3 * * ? *)';
export const DEFAULT_SUMMARIES_TIME_ZONE = 'UTC';
/** Ubuntu 22.04 with gcc/g++/make, Java (Corretto), Python, Node, Go and more. */
export const DEFAULT_GRADING_IMAGE = 'aws/codebuild/standard:7.0';
export const DEFAULT_GRADING_CONCURRENCY = 20;
/** Two years: a report of a course compares with the same course of a year before. */
export const DEFAULT_FINGERPRINT_DAYS = 730;

export function deploymentSettings(node: Node): DeploymentSettings {
  const stage = String(node.tryGetContext('stage') ?? DEFAULT_STAGE);
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage)) {
    throw new Error(`Context "stage" must be lower-case letters, digits and dashes (at most 20), not "${stage}"`);
  }
  return {
    stage,
    production: stage === 'prod',
    corsOrigins: origins(node.tryGetContext('corsOrigins')),
    throttleRate: positiveNumber('throttleRate', node.tryGetContext('throttleRate'), DEFAULT_THROTTLE_RATE),
    throttleBurst: positiveNumber('throttleBurst', node.tryGetContext('throttleBurst'), DEFAULT_THROTTLE_BURST),
    summariesSchedule: scheduleExpression(node.tryGetContext('summariesSchedule')),
    summariesTimeZone: timeZone(node.tryGetContext('summariesTimeZone')),
    allowedGitHosts: gitHosts(node.tryGetContext('allowedGitHosts')),
    gradingImages: gradingImages(node.tryGetContext('gradingImages')),
    gradingConcurrency: positiveNumber('gradingConcurrency', node.tryGetContext('gradingConcurrency'), DEFAULT_GRADING_CONCURRENCY),
    submissionRetentionDays: retentionDays(node.tryGetContext('submissionRetentionDays')),
    similarityFingerprintDays: Math.ceil(
      positiveNumber('similarityFingerprintDays', node.tryGetContext('similarityFingerprintDays'), DEFAULT_FINGERPRINT_DAYS),
    ),
    gradingFleet: [undefined, null, '', 0, '0'].includes(node.tryGetContext('gradingFleet') as never)
      ? 0
      : Math.ceil(positiveNumber('gradingFleet', node.tryGetContext('gradingFleet'), 1)),
    ...emailAddress(node.tryGetContext('alarmEmail')),
  };
}

function gitHosts(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value.map(String) : String(value).split(',');
  const result = list.map((host) => host.trim()).filter((host) => host !== '');
  for (const host of result) {
    if (!/^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/.test(host)) {
      throw new Error(`Context "allowedGitHosts" takes hosts like git.example.edu or 10.0.0.5:8080, not "${host}"`);
    }
  }
  return result;
}

/** A recurring EventBridge Scheduler expression: `cron(` six fields `)` or `rate(` n unit `)`. */
function scheduleExpression(value: unknown): string {
  if (value === undefined || value === null || value === '') return DEFAULT_SUMMARIES_SCHEDULE;
  const expression = String(value).trim();
  const cron = /^cron\((.*)\)$/.exec(expression)?.[1]?.trim().split(/\s+/);
  const rate = /^rate\([1-9]\d* (minutes?|hours?|days?)\)$/.test(expression);
  if (!rate && cron?.length !== 6) {
    throw new Error(
      `Context "summariesSchedule" takes a cron(minutes hours day-of-month month day-of-week year) or rate(n unit) expression, not "${expression}"`,
    );
  }
  return expression;
}

function timeZone(value: unknown): string {
  if (value === undefined || value === null || value === '') return DEFAULT_SUMMARIES_TIME_ZONE;
  const zone = String(value).trim();
  try {
    // IANA names only: Node also knows offsets like +01:00, which EventBridge Scheduler refuses.
    if (!/^[A-Z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(zone)) throw new RangeError(zone);
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    throw new Error(`Context "summariesTimeZone" takes an IANA time zone like UTC or America/New_York, not "${zone}"`);
  }
  return zone;
}

function origins(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value.map(String) : String(value).split(',');
  const result = list.map((origin) => origin.trim()).filter((origin) => origin !== '');
  for (const origin of result) {
    if (!isCorsOrigin(origin)) {
      throw new Error(`Context "corsOrigins" takes origins like https://app.example.edu (or *), not "${origin}"`);
    }
  }
  return result;
}

function positiveNumber(name: string, value: unknown, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new Error(`Context "${name}" must be a positive number, not "${String(value)}"`);
  return number;
}

function emailAddress(value: unknown): { alarmEmail?: string } {
  if (value === undefined || value === null || value === '') return {};
  const address = String(value).trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address)) throw new Error(`Context "alarmEmail" takes an e-mail address, not "${address}"`);
  return { alarmEmail: address };
}

function gradingImages(value: unknown): Record<string, string> {
  const images: Record<string, string> = { default: DEFAULT_GRADING_IMAGE };
  if (value === undefined || value === null || value === '') return images;
  const pairs =
    typeof value === 'object' && !Array.isArray(value)
      ? Object.entries(value as Record<string, unknown>).map(([name, image]) => [name, String(image)])
      : (Array.isArray(value) ? value.map(String) : String(value).split(',')).map((pair) => pair.split('=').map((part) => part.trim()));
  for (const [name, image] of pairs) {
    if (!name || !/^[a-z][a-z0-9-]{0,31}$/.test(name) || !image || !(CURATED_IMAGE.test(image) || ecrImage(image) !== undefined)) {
      throw new Error(
        `Context "gradingImages" takes name=image pairs of CodeBuild curated images, like cpp=aws/codebuild/standard:7.0, or ECR images pinned by digest, like cpp=123456789012.dkr.ecr.us-east-1.amazonaws.com/grading/cpp@sha256:<64 hex>, not "${name}=${image ?? ''}"`,
      );
    }
    images[name] = image;
  }
  return images;
}

/** Days by term: an object in cdk.json, or `term=days` pairs (comma list or array) on the command line. */
function retentionDays(value: unknown): Record<string, number> {
  if (value === undefined || value === null || value === '') return {};
  const pairs =
    typeof value === 'object' && !Array.isArray(value)
      ? Object.entries(value as Record<string, unknown>).map(([term, days]) => [term, String(days)])
      : (Array.isArray(value) ? value.map(String) : String(value).split(',')).map((pair) => pair.split('=').map((part) => part.trim()));
  const result: Record<string, number> = {};
  for (const [term, days] of pairs) {
    const number = Number(days);
    // Term ids as the API takes them; S3 keeps an object at least a day.
    if (!term || !/^[A-Za-z0-9_-]{1,64}$/.test(term) || !Number.isSafeInteger(number) || number < 1) {
      throw new Error(
        `Context "submissionRetentionDays" takes term=days pairs with whole days of at least 1, like f25=400, not "${term ?? ''}=${days ?? ''}"`,
      );
    }
    result[term] = number;
  }
  return result;
}
