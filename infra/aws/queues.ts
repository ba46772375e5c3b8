import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

export interface DeadLetteredQueue {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
}

/**
 * A queue, encrypted and TLS only, whose message received `maxReceiveCount` times without being
 * handled moves to its own dead-letter queue, kept 14 days. The ids are the constructs' own, so
 * the queues keep their logical ids.
 */
export function deadLetteredQueue(
  scope: Construct,
  ids: { readonly queue: string; readonly deadLetterQueue: string },
  props: { readonly visibilityTimeout: Duration; readonly maxReceiveCount: number },
): DeadLetteredQueue {
  const deadLetterQueue = new Queue(scope, ids.deadLetterQueue, {
    retentionPeriod: Duration.days(14),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
  const queue = new Queue(scope, ids.queue, {
    visibilityTimeout: props.visibilityTimeout,
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
  });
  return { queue, deadLetterQueue };
}

/** An alarm as soon as a message reaches `deadLetterQueue` (checked every 5 minutes). */
export const deadLettersAlarm = (scope: Construct, deadLetterQueue: Queue, alarmDescription: string): Alarm =>
  new Alarm(scope, 'DeadLettersAlarm', {
    alarmDescription,
    metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
    threshold: 0,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
