import { describe, expect, it } from 'vitest';
import type { Queue } from '../deployed/cloudformation.ts';
import { sendRefusal, type OutgoingMessage } from '../deployed/sqs.ts';

// The deployed test's SQS must refuse what SQS refuses, or a message too large or too late for
// AWS would pass the test.

const queue: Queue = {
  logicalId: 'GradingQueue',
  name: 'grading',
  url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/grading',
  arn: 'arn:aws:sqs:eu-west-1:123456789012:grading',
  visibilityTimeoutSeconds: 30,
  policies: [],
};
const message = (body: string, more: Partial<OutgoingMessage> = {}): OutgoingMessage => ({
  body,
  attributes: {},
  delaySeconds: 0,
  ...more,
});
const refusedAs = (messages: OutgoingMessage[], batch = false, target = queue) => sendRefusal(target, messages, batch)?.name;

describe("the deployed test's SQS", () => {
  it('takes a message up to the queue size limit, with its attributes counted, and a delay up to 15 minutes', () => {
    expect(refusedAs([message('x'.repeat(262_144))])).toBeUndefined();
    expect(refusedAs([message('{"ticket":1}', { delaySeconds: 900 })])).toBeUndefined();
    expect(refusedAs([message('x'.repeat(262_145))])).toBe('InvalidParameterValue');
    const attributes = { kind: { DataType: 'String', StringValue: 'y'.repeat(100) } };
    expect(refusedAs([message('x'.repeat(262_100), { attributes })])).toBe('InvalidParameterValue');
    expect(refusedAs([message('x'.repeat(300_000))], false, { ...queue, maximumMessageBytes: 1_048_576 })).toBeUndefined();
  });

  it('refuses a delay beyond 900 seconds or below 0, an empty body and characters SQS does not carry', () => {
    expect(refusedAs([message('{}', { delaySeconds: 901 })])).toBe('InvalidParameterValue');
    expect(refusedAs([message('{}', { delaySeconds: -1 })])).toBe('InvalidParameterValue');
    expect(refusedAs([message('')])).toBe('MissingParameter');
    expect(refusedAs([message('a\u0000b')])).toBe('InvalidMessageContents');
    expect(refusedAs([message('tab\tnewline\n€ 𝄞')])).toBeUndefined();
  });

  it('refuses a batch that is empty, over 10 entries, repeats an id or is larger in all than one message may be', () => {
    const entries = (count: number, body = '{}') => Array.from({ length: count }, (_, index) => ({ ...message(body), id: String(index) }));
    expect(refusedAs(entries(10), true)).toBeUndefined();
    expect(refusedAs([], true)).toBe('EmptyBatchRequest');
    expect(refusedAs(entries(11), true)).toBe('TooManyEntriesInBatchRequest');
    expect(refusedAs([...entries(2), { ...message('{}'), id: '1' }], true)).toBe('BatchEntryIdsNotDistinct');
    expect(refusedAs(entries(2, 'x'.repeat(140_000)), true)).toBe('BatchRequestTooLong');
  });
});
