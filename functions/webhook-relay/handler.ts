import { LTI_SCORE_QUEUE, sendLtiScoreEntry } from '#shared/lti/score-queue.ts';
import { relayOutbox, type RelayReport } from '#shared/webhooks/relay.ts';

/**
 * The outbox relay, invoked every minute by a schedule in AWS and every second by the local API:
 * queues what the outbox still holds, webhook messages on the webhook queue and grades for the
 * linked LMS courses on the LTI score queue. A run a queue refuses fails; the next one tries again.
 */
export const handler = (): Promise<RelayReport> => relayOutbox(new Date(), { [LTI_SCORE_QUEUE]: sendLtiScoreEntry });
