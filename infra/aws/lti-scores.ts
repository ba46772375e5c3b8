import { Duration } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deadLetteredQueue, deadLettersAlarm } from './queues.ts';
import type { ServiceFunction } from './service-function.ts';

/** Receives of one message before it goes to the dead-letter queue (the lti-score function failed each time). */
export const LTI_SCORE_MAX_RECEIVES = 5;
/** The lti-score function's time limit: a message's deliveries each ask the LMS within 8 s, a few at a time. */
export const LTI_SCORE_TIMEOUT = Duration.seconds(60);
/** At least six times the function's time limit, as Lambda recommends for queues it polls. */
const VISIBILITY_TIMEOUT = Duration.minutes(6);

/**
 * Grade passback on the managed services: the LTI score queue (grades to send to the linked LMS
 * courses, and retries held back by their delay), its dead-letter queue with an alarm, and the
 * lti-score function fed by the queue. The outbox relay and the function itself get SendMessage.
 */
export class LtiScoreQueues extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly deadLettersAlarm: Alarm;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // Messages only: the deliveries, their attempts and scores live in the lti table.
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = deadLetteredQueue(
      this,
      { queue: 'Queue', deadLetterQueue: 'DeadLetterQueue' },
      { visibilityTimeout: VISIBILITY_TIMEOUT, maxReceiveCount: LTI_SCORE_MAX_RECEIVES },
    ));
    this.deadLettersAlarm = deadLettersAlarm(
      this,
      this.deadLetterQueue,
      `A grade for a linked LMS course failed ${LTI_SCORE_MAX_RECEIVES} times (the lti-score function crashed, or DynamoDB or SQS failed); ` +
        'see the lti-score logs. An LMS that refuses a score does not land here: its delivery ends as failed, for replay.',
    );
  }

  /** SendMessage on the LTI score queue, nothing else. */
  grantSend(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
  }

  /** Feeds the lti-score function one message at a time, a few functions at once (an LMS limits its callers' rate). */
  connect(worker: ServiceFunction): void {
    worker.function.addEventSource(new SqsEventSource(this.queue, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: 5 }));
  }
}
