import { beforeAll, describe, expect, it } from 'vitest';
import { logicalId, synthesize, type Synthesized } from './synth.ts';

/** The webhook delivery in the CDK template (no bundling: test/infra/stack.test.ts bundles and checks grants). */
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({}, { bundle: false });
}, 120_000);

const ofType = (type: string) => Object.entries(synth.resources).filter(([, resource]) => resource.Type === type);
const getAtt = (id: string, attribute = 'Arn') => ({ 'Fn::GetAtt': [id, attribute] });
const functionId = (name: Parameters<Synthesized['stack']['functions']['get']>[0]) => logicalId(synth.stack.functions.get(name)!.function);
const variables = (name: Parameters<Synthesized['stack']['functions']['get']>[0]) =>
  synth.resources[functionId(name)]!.Properties.Environment.Variables as Record<string, unknown>;

describe('webhook delivery', () => {
  const queueId = () => logicalId(synth.stack.webhooks.queue);
  const deadLetterId = () => logicalId(synth.stack.webhooks.deadLetterQueue);

  it('moves a message the delivery function failed on 5 times to a dead-letter queue; both encrypted, TLS only', () => {
    const queue = synth.resources[queueId()]!.Properties;
    expect(queue.RedrivePolicy).toEqual({ deadLetterTargetArn: getAtt(deadLetterId()), maxReceiveCount: 5 });
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(6 * synth.resources[functionId('webhook-delivery')]!.Properties.Timeout);
    for (const id of [queueId(), deadLetterId()]) {
      expect(synth.resources[id]!.Properties.SqsManagedSseEnabled, id).toBe(true);
      const statements = ofType('AWS::SQS::QueuePolicy')
        .filter(([, policy]) => policy.Properties.Queues[0].Ref === id)
        .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement);
      expect(statements, id).toEqual([
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]);
    }
  });

  it('feeds the delivery function one message at a time, reporting failures per message', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, mapping]) => mapping.Properties.EventSourceArn['Fn::GetAtt'][0] === queueId(),
    );
    expect(mappings.map(([, mapping]) => mapping.Properties)).toEqual([
      {
        EventSourceArn: getAtt(queueId()),
        FunctionName: { Ref: functionId('webhook-delivery') },
        BatchSize: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      },
    ]);
  });

  it('alarms as soon as a message reaches the dead-letter queue', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: getAtt(deadLetterId(), 'QueueName') }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('names the queue to the functions that publish, and no other', () => {
    // The summaries worker generates as generate-summaries does, announcing each generation; the
    // relay queues what the outbox still holds.
    const publishers = [
      'generate-summaries',
      'summaries-worker',
      'replay-webhook-delivery',
      'grading-worker',
      'webhook-delivery',
      'webhook-relay',
      'open-inquiry',
      'change-inquiry-status',
    ] as const;
    for (const name of synth.stack.functions.keys()) {
      const expected = (publishers as readonly string[]).includes(name) ? { Ref: queueId() } : undefined;
      expect(variables(name).WEBHOOK_QUEUE_URL, name).toEqual(expected);
    }
  });

  it('leaves the default retry schedule and no allowed hosts unless the context sets them', () => {
    expect(variables('webhook-delivery').WEBHOOK_RETRY_SCHEDULE).toBeUndefined();
    expect(variables('webhook-delivery').WEBHOOK_ALLOWED_HOSTS).toBeUndefined();
    const configured = synthesize(
      { allowedWebhookHosts: 'hooks.campus.edu,10.0.0.5:8443', webhookRetrySchedule: '1,2' },
      { bundle: false },
    );
    const environment = (name: 'webhook-delivery' | 'create-webhook' | 'list-webhooks') =>
      configured.resources[logicalId(configured.stack.functions.get(name)!.function)]!.Properties.Environment.Variables;
    expect(environment('webhook-delivery')).toMatchObject({
      WEBHOOK_ALLOWED_HOSTS: 'hooks.campus.edu,10.0.0.5:8443',
      WEBHOOK_RETRY_SCHEDULE: '1,2',
    });
    expect(environment('create-webhook')).toMatchObject({ WEBHOOK_ALLOWED_HOSTS: 'hooks.campus.edu,10.0.0.5:8443' });
    expect(environment('create-webhook').WEBHOOK_RETRY_SCHEDULE).toBeUndefined();
    expect(environment('list-webhooks').WEBHOOK_ALLOWED_HOSTS).toBeUndefined();
    expect(() => synthesize({ allowedWebhookHosts: 'https://x' }, { bundle: false })).toThrow(/allowedWebhookHosts/);
    expect(() => synthesize({ webhookRetrySchedule: 'soon' }, { bundle: false })).toThrow(/webhookRetrySchedule/);
  }, 120_000);

  it('creates the webhook tables with their keys, deliveries expiring by TTL', () => {
    const table = (id: string) => ofType('AWS::DynamoDB::Table').find(([logical]) => logical.startsWith(id))![1].Properties;
    expect(table('WebhookDeliveries')).toMatchObject({ TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true } });
    expect(table('WebhookSecrets').KeySchema).toEqual([{ AttributeName: 'webhookKey', KeyType: 'HASH' }]);
    // Outbox entries never expire: one leaves only once its message is on the queue.
    expect(table('WebhookOutbox').KeySchema).toEqual([{ AttributeName: 'messageId', KeyType: 'HASH' }]);
    expect(table('WebhookOutbox').TimeToLiveSpecification).toBeUndefined();
  });
});
