import { App } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { deploymentSettings } from '#infra/aws/settings.ts';
import { routeKeys } from '#functions/definitions.ts';
import { logicalId, synthesize, tableEntries, type Synthesized } from './synth.ts';

// One synthesis for the file, of a production stage with CORS and throttling set; settings only,
// so esbuild bundling is skipped (stack.test.ts bundles for real).
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize(
    {
      stage: 'prod',
      corsOrigins: 'https://app.example.edu, https://ide.example.edu',
      throttleRate: '10',
      throttleBurst: 20,
      summariesSchedule: 'cron(30 1 ? * MON-FRI *)',
      summariesTimeZone: 'America/New_York',
      alarmEmail: 'ops@example.edu',
      submissionsPerMinute: 30,
      maxVersions: '500',
      maxQueuedJobsPerStudent: 3,
      courseBurstPerMinute: 40,
    },
    { bundle: false },
  );
}, 300_000);

const environmentOf = (synthesized: Synthesized, name: 'submit-vcs' | 'submit-files' | 'generate-summaries' | 'me') =>
  synthesized.resources[logicalId(synthesized.stack.functions.get(name)!.function)]!.Properties.Environment.Variables as Record<
    string,
    unknown
  >;

describe('a production stage from context', () => {
  it('protects and retains every table', () => {
    for (const [key, definition] of tableEntries) {
      const table = synth.resources[logicalId(synth.stack.tables.get(key)!)]!;
      expect(table.Properties.DeletionProtectionEnabled, definition.id).toBe(true);
      expect(table.DeletionPolicy, definition.id).toBe('Retain');
      expect(table.UpdateReplacePolicy, definition.id).toBe('Retain');
    }
  });

  it('retains the signing secret and the logs', () => {
    synth.template.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain' });
    const logGroups = synth.template.findResources('AWS::Logs::LogGroup');
    expect(Object.values(logGroups).every((group) => group.DeletionPolicy === 'Retain')).toBe(true);
  });

  it('allows the configured CORS origins, the route table’s methods and the API’s headers', () => {
    const [api] = Object.values(synth.template.findResources('AWS::ApiGatewayV2::Api'));
    const cors = api!.Properties.CorsConfiguration;
    expect(cors.AllowOrigins).toEqual(['https://app.example.edu', 'https://ide.example.edu']);
    expect([...cors.AllowMethods].sort()).toEqual([...new Set(routeKeys.map((key) => key.method))].sort());
    expect(cors.AllowHeaders).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'prefer', 'if-none-match', 'if-match', 'idempotency-key']),
    );
    expect(cors.ExposeHeaders).toEqual(expect.arrayContaining(['preference-applied', 'retry-after', 'etag', 'link']));
  });

  it('throttles the stage as configured', () => {
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
    });
  });

  it('subscribes the alarm e-mail address to the alarm topic', () => {
    const [topicId] = Object.keys(synth.template.findResources('AWS::SNS::Topic'));
    synth.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.edu',
      TopicArn: { Ref: topicId },
    });
  });

  it('gives the submission functions (from git and of files) the submission limits configured, and no other function', () => {
    for (const name of ['submit-vcs', 'submit-files'] as const) {
      expect(environmentOf(synth, name), name).toMatchObject({
        SUBMISSIONS_PER_MINUTE: '30',
        MAX_VERSIONS: '500',
        MAX_QUEUED_JOBS_PER_STUDENT: '3',
        COURSE_BURST_PER_MINUTE: '40',
      });
    }
    expect(environmentOf(synth, 'me').SUBMISSIONS_PER_MINUTE).toBeUndefined();
    expect(environmentOf(synth, 'generate-summaries').MAX_VERSIONS).toBeUndefined();
    expect(() => synthesize({ submissionsPerMinute: 'many' }, { bundle: false })).toThrow(/SUBMISSIONS_PER_MINUTE/);
    expect(() => synthesize({ maxVersions: 0 }, { bundle: false })).toThrow(/MAX_VERSIONS/);
  }, 60_000);

  it('schedules the nightly summaries as configured', () => {
    synth.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(30 1 ? * MON-FRI *)',
      ScheduleExpressionTimezone: 'America/New_York',
    });
  });
});

describe('deployment settings', () => {
  const settings = (context: Record<string, unknown>) => deploymentSettings(new App({ context }).node);

  it('defaults to a dev stage without CORS, at 1,000 requests per second a route with bursts of 2,000, summaries at 03:00 UTC', () => {
    expect(settings({})).toEqual({
      stage: 'dev',
      production: false,
      corsOrigins: [],
      throttleRate: 1000,
      throttleBurst: 2000,
      summariesSchedule: 'cron(0 3 * * ? *)',
      summariesTimeZone: 'UTC',
      allowedGitHosts: [],
      gradingImages: { default: 'aws/codebuild/standard:7.0' },
      gradingConcurrency: 20,
      gradingFleet: 0,
      // Submitted files are kept until a term's retention is set.
      submissionRetentionDays: {},
      // A files version's similarity fingerprints, compared with later terms', for two years.
      similarityFingerprintDays: 730,
    });
  });

  it('takes a reserved-capacity fleet for the grading builds: a number of machines, 0 or none for on-demand only', () => {
    expect(settings({ gradingFleet: '4' }).gradingFleet).toBe(4);
    expect(settings({ gradingFleet: 0 }).gradingFleet).toBe(0);
    expect(() => settings({ gradingFleet: 'many' })).toThrow(/gradingFleet/);
  });

  it('takes the approved grading images as name=image pairs of CodeBuild curated images, and the grading concurrency', () => {
    expect(settings({ gradingImages: 'arm=aws/codebuild/amazonlinux-aarch64-standard:3.0', gradingConcurrency: '5' })).toMatchObject({
      gradingImages: { default: 'aws/codebuild/standard:7.0', arm: 'aws/codebuild/amazonlinux-aarch64-standard:3.0' },
      gradingConcurrency: 5,
    });
    expect(settings({ gradingImages: { default: 'aws/codebuild/standard:8.0' } }).gradingImages).toEqual({
      default: 'aws/codebuild/standard:8.0',
    });
    expect(() => settings({ gradingImages: 'evil=docker.io/attacker/image:latest' })).toThrow(/gradingImages/);
    // An image of the deployment's ECR only when pinned by digest: a tag can be moved under a record that names it.
    const pinned = `123456789012.dkr.ecr.us-east-1.amazonaws.com/grading/cpp@sha256:${'0a'.repeat(32)}`;
    expect(settings({ gradingImages: `cpp=${pinned}` }).gradingImages).toMatchObject({ cpp: pinned });
    expect(() => settings({ gradingImages: 'cpp=123456789012.dkr.ecr.us-east-1.amazonaws.com/grading/cpp:latest' })).toThrow(
      /pinned by digest/,
    );
    expect(() => settings({ gradingImages: `evil=docker.io/attacker/image@sha256:${'0a'.repeat(32)}` })).toThrow(/gradingImages/);
    expect(() => settings({ gradingImages: `cpp=${pinned.replace('sha256:', 'sha512:')}` })).toThrow(/gradingImages/);
    expect(() => settings({ gradingImages: 'Bad Name=aws/codebuild/standard:7.0' })).toThrow(/gradingImages/);
    expect(() => settings({ gradingConcurrency: 0 })).toThrow(/gradingConcurrency/);
  });

  it('takes the git hosts the runner may reach on private addresses', () => {
    expect(settings({ allowedGitHosts: 'git.example.edu, 10.0.0.5:8080' }).allowedGitHosts).toEqual(['git.example.edu', '10.0.0.5:8080']);
    expect(() => settings({ allowedGitHosts: 'https://git.example.edu' })).toThrow(/allowedGitHosts/);
  });

  it('takes the summaries schedule as a cron or rate expression in an IANA time zone', () => {
    expect(settings({ summariesSchedule: 'rate(12 hours)', summariesTimeZone: 'Europe/Berlin' })).toMatchObject({
      summariesSchedule: 'rate(12 hours)',
      summariesTimeZone: 'Europe/Berlin',
    });
    expect(settings({ summariesSchedule: ' cron(0 4 * * ? *) ' }).summariesSchedule).toBe('cron(0 4 * * ? *)');
  });

  it('takes CORS origins as a comma list (-c) or an array (cdk.json)', () => {
    expect(settings({ corsOrigins: 'https://a.example.edu,https://b.example.edu' }).corsOrigins).toEqual([
      'https://a.example.edu',
      'https://b.example.edu',
    ]);
    expect(settings({ corsOrigins: ['https://a.example.edu'] }).corsOrigins).toEqual(['https://a.example.edu']);
    expect(settings({ corsOrigins: '' }).corsOrigins).toEqual([]);
  });

  it('refuses values that would deploy something else than meant', () => {
    expect(() => settings({ stage: 'Prod!' })).toThrow(/stage/);
    expect(() => settings({ corsOrigins: 'app.example.edu/path' })).toThrow(/corsOrigins/);
    expect(() => settings({ throttleRate: 'fast' })).toThrow(/throttleRate/);
    expect(() => settings({ throttleBurst: 0 })).toThrow(/throttleBurst/);
    expect(() => settings({ summariesSchedule: '0 3 * * *' })).toThrow(/summariesSchedule/);
    expect(() => settings({ summariesSchedule: 'cron(0 3 * * *)' })).toThrow(/summariesSchedule/);
    expect(() => settings({ summariesSchedule: 'rate(0 days)' })).toThrow(/summariesSchedule/);
    expect(() => settings({ summariesTimeZone: 'Mars/Olympus_Mons' })).toThrow(/summariesTimeZone/);
    expect(() => settings({ summariesTimeZone: '+01:00' })).toThrow(/summariesTimeZone/);
    expect(() => settings({ alarmEmail: 'ops at example.edu' })).toThrow(/alarmEmail/);
  });
});
