import { Duration, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyStatement, Role, ServicePrincipal, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct, type Node } from 'constructs';
import { parseSetting } from '#shared/config.ts';
import { deadLetteredQueue, deadLettersAlarm } from './queues.ts';
import type { ServiceFunction } from './service-function.ts';

/** Receives of one message before it goes to the dead-letter queue (the delivery function failed each time). */
export const WEBHOOK_MAX_RECEIVES = 5;
/** The delivery function's time limit, a route handler's (one attempt waits at most 10 s for its receiver). */
export const WEBHOOK_DELIVERY_TIMEOUT = Duration.seconds(25);
/** The outbox relay's time limit: below its schedule's minute (a run that overlaps the next only sends copies). */
export const WEBHOOK_RELAY_TIMEOUT = Duration.seconds(50);
/** At least six times the delivery function's time limit, as Lambda recommends for queues it polls. */
const VISIBILITY_TIMEOUT = Duration.minutes(3);

/** What varies between deployments, from CDK context. */
export interface WebhookSettings {
  /** `allowedWebhookHosts`: hosts (`host` or `host:port`) webhooks may reach although private, and over http. */
  readonly allowedHosts: readonly string[];
  /** `webhookRetrySchedule`: seconds before each retry, a comma list (default 5,300,1800,7200). */
  readonly retrySchedule?: string;
}

export function webhookSettings(node: Node): WebhookSettings {
  const hosts = node.tryGetContext('allowedWebhookHosts') as unknown;
  const list = hosts === undefined || hosts === null ? [] : Array.isArray(hosts) ? hosts.map(String) : String(hosts).split(',');
  const allowedHosts = list.map((host) => host.trim()).filter((host) => host !== '');
  for (const host of allowedHosts) {
    if (!/^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/.test(host)) {
      throw new Error(`Context "allowedWebhookHosts" takes hosts like hooks.example.edu or 10.0.0.5:8080, not "${host}"`);
    }
  }
  const schedule = node.tryGetContext('webhookRetrySchedule') as unknown;
  if (schedule === undefined || schedule === null || schedule === '') return { allowedHosts };
  const text = Array.isArray(schedule) ? schedule.join(',') : String(schedule);
  const { problem } = parseSetting('WEBHOOK_RETRY_SCHEDULE', text);
  if (problem) throw new Error(`Context "webhookRetrySchedule" takes a comma list of at most 20 delays in seconds, not "${text}"`);
  return { allowedHosts, retrySchedule: text };
}

/**
 * Webhook delivery on the managed services: the webhook queue (events to fan out, attempts to make,
 * each held back by its retry delay), its dead-letter queue with an alarm, and the delivery
 * function fed by the queue. The functions that publish get SendMessage on the queue only.
 */
export class WebhookDelivery extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly deadLettersAlarm: Alarm;
  /** Runs the outbox relay every minute (set by `connect`). */
  outboxSchedule?: Schedule;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // Messages only: deliveries, their payloads and attempts live in the deliveries table.
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = deadLetteredQueue(
      this,
      { queue: 'Queue', deadLetterQueue: 'DeadLetterQueue' },
      { visibilityTimeout: VISIBILITY_TIMEOUT, maxReceiveCount: WEBHOOK_MAX_RECEIVES },
    ));
    this.deadLettersAlarm = deadLettersAlarm(
      this,
      this.deadLetterQueue,
      `A webhook message failed ${WEBHOOK_MAX_RECEIVES} times (the delivery function crashed, or DynamoDB or SQS failed); ` +
        'see the webhook-delivery logs. A receiver that answers errors does not land here: its deliveries end as failed, for replay.',
    );
  }

  /** SendMessage on the webhook queue, nothing else. */
  grantPublish(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
  }

  /**
   * Feeds the delivery function one message at a time and runs the outbox relay every minute (the
   * functions' settings come with the rest of their environment, infra/aws/stack.ts).
   */
  connect(functions: { readonly delivery: ServiceFunction; readonly relay: ServiceFunction }): void {
    functions.delivery.function.addEventSource(new SqsEventSource(this.queue, { batchSize: 1, reportBatchItemFailures: true }));
    const relay = functions.relay.function;
    const stack = Stack.of(relay);
    const role = new Role(this, 'OutboxRelayRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': stack.account } } }),
      description: 'Lets the outbox schedule invoke functions/webhook-relay/handler.ts',
    });
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${stack.resolve(stack.getLogicalId(relay.node.defaultChild as CfnElement))}.Arn>:*]`,
      reason: 'The schedule may invoke the outbox relay only; CDK grants its versions and aliases (:*) along with it.',
    });
    this.outboxSchedule = new Schedule(this, 'OutboxRelaySchedule', {
      description: 'Queues the webhook messages the outbox still holds (the webhook queue refused them when they were recorded)',
      schedule: ScheduleExpression.rate(Duration.minutes(1)),
      // A run missed is made up by the next one a minute later.
      target: new LambdaInvoke(relay, { role, maxEventAge: Duration.minutes(1), retryAttempts: 0 }),
    });
  }
}
