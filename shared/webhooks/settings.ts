/** Webhook settings, read from the environment when used. */

/** Seconds before each retry (Standard Webhooks' suggestion, cut at two hours): 5 attempts over about 2.6 hours. */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [5, 300, 1800, 7200];
/** How long one attempt waits for the receiver's answer. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * `WEBHOOK_RETRY_SCHEDULE`: the seconds to wait before each retry, a comma list (fractions allowed,
 * which SQS rounds up to whole seconds); its length is the number of retries. Anything else is
 * reported and the default used.
 */
export function retrySchedule(raw: string | undefined): { delays: readonly number[]; problem?: string } {
  if (raw === undefined || raw.trim() === '') return { delays: DEFAULT_RETRY_SCHEDULE };
  const delays = raw.split(',').map((part) => Number(part.trim()));
  if (
    delays.length > 20 ||
    delays.some((delay) => !Number.isFinite(delay) || delay < 0 || delay > 86_400) ||
    raw.split(',').some((part) => part.trim() === '')
  ) {
    return {
      delays: DEFAULT_RETRY_SCHEDULE,
      problem: `WEBHOOK_RETRY_SCHEDULE must be a comma list of at most 20 delays in seconds (0 to 86400), not ${JSON.stringify(raw)}; the default ${DEFAULT_RETRY_SCHEDULE.join(',')} is used`,
    };
  }
  return { delays };
}

/** `WEBHOOK_ALLOWED_HOSTS`: hosts (`host` or `host:port`) webhooks may reach although they resolve to private addresses, and over plain http. */
export const allowedWebhookHosts = (): string[] =>
  (process.env.WEBHOOK_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((host) => host.trim())
    .filter(Boolean);
