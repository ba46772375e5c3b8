import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  vi.resetModules();
});

/** One line of CloudWatch's embedded metric format: the metrics' values and dimensions, and what they are. */
interface MetricDocument {
  readonly _aws: { readonly CloudWatchMetrics: readonly { readonly Dimensions: readonly string[][] }[] };
  readonly [field: string]: unknown;
}

/** What countAnswer writes to stdout, parsed: CloudWatch reads these lines from the function's log. */
async function published(count: (module: typeof import('#shared/http/metrics.ts')) => void): Promise<MetricDocument[]> {
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  vi.resetModules();
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  count(await import('#shared/http/metrics.ts'));
  return lines
    .join('')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as MetricDocument);
}

describe('answer metrics', () => {
  it('count an error envelope by route and code, and in all for the alarm', async () => {
    const [document] = await published(({ countAnswer }) => countAnswer('error', 'GET /api/me', 'RETRYABLE'));
    expect(document).toMatchObject({ ErrorAnswers: 1, route: 'GET /api/me', code: 'RETRYABLE', service: 'course-submission-api' });
    expect(document!._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'CourseSubmissionApi',
      Dimensions: [['service', 'route', 'code'], ['service']],
      Metrics: [{ Name: 'ErrorAnswers', Unit: 'Count' }],
    });
  });

  it('count a fail envelope by route only', async () => {
    const [document] = await published(({ countAnswer }) => countAnswer('fail', 'POST /api/token'));
    expect(document).toMatchObject({ FailAnswers: 1, route: 'POST /api/token' });
    expect(document).not.toHaveProperty('ErrorAnswers');
    expect(document!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'route']]);
  });
});
