import { relayOutbox, type RelayReport } from '#shared/webhooks/relay.ts';

/**
 * The outbox relay, invoked every minute by a schedule in AWS and every second by the local API:
 * queues what the outbox still holds. A run the queue refuses fails; the next one tries again.
 */
export const handler = (): Promise<RelayReport> => relayOutbox();
