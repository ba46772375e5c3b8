import type { SQSClient } from '@aws-sdk/client-sqs';
import { companionModule } from '#shared/companion.ts';

/**
 * The name of the SQS client's companion file beside a deployed bundle, set by esbuild's `define`
 * (infra/aws/service-function.ts bundles sqs-sdk.ts into it); unset when running from the sources.
 */
export const SQS_SDK_COMPANION_GLOBAL = 'QUEUE_SQS_SDK_COMPANION';
declare const QUEUE_SQS_SDK_COMPANION: string | undefined;

type SqsSdk = typeof import('./sqs-sdk.ts');

/** The SQS client's code, loaded by the first message sent (the module cache keeps it). */
const sdk = (): Promise<SqsSdk> =>
  typeof QUEUE_SQS_SDK_COMPANION === 'string' ? companionModule<SqsSdk>(QUEUE_SQS_SDK_COMPANION) : import('./sqs-sdk.ts');

let sqs: SQSClient | undefined;

/**
 * Sends `body` to the SQS queue at `queueUrl`, visible after `delaySeconds` whole seconds when
 * given. Only for queues in AWS: the local API's in-process queues never reach this module, so
 * they never load the client.
 */
export async function sendSqsMessage(queueUrl: string, body: string, delaySeconds?: number): Promise<void> {
  const { SendMessageCommand, SQSClient } = await sdk();
  sqs ??= new SQSClient({});
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: body,
      ...(delaySeconds === undefined ? {} : { DelaySeconds: delaySeconds }),
    }),
  );
}
