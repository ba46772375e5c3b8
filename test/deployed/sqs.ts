import { createHash, randomUUID } from 'node:crypto';
import { REGION, type Deployment, type EventSourceMapping, type Queue } from './cloudformation.ts';
import { mergePolicies, type PolicyEvaluator } from './iam.ts';
import type { LambdaService } from './lambda-service.ts';

export interface MessageAttribute {
  readonly DataType: string;
  readonly StringValue?: string;
  readonly BinaryValue?: string;
}

interface Message {
  readonly messageId: string;
  readonly body: string;
  readonly md5OfBody: string;
  readonly attributes: Record<string, MessageAttribute>;
  readonly sentTimestamp: number;
  readonly senderId: string;
  receiveCount: number;
  firstReceiveTimestamp?: number;
  visibleAt: number;
  inFlight: boolean;
}

export interface BatchFailure {
  readonly function: string;
  readonly messageId: string;
  readonly receiveCount: number;
  readonly reason: string;
}

export const md5 = (text: string | Buffer) => createHash('md5').update(text).digest('hex');

/** SQS's MD5 of message attributes (the SDK checks it when attributes are sent). */
export function md5OfAttributes(attributes: Record<string, MessageAttribute>): string {
  const parts: Buffer[] = [];
  const field = (value: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(value.length);
    parts.push(length, value);
  };
  for (const name of Object.keys(attributes).sort()) {
    const attribute = attributes[name]!;
    field(Buffer.from(name));
    field(Buffer.from(attribute.DataType));
    const binary = attribute.BinaryValue !== undefined;
    parts.push(Buffer.from([binary ? 2 : 1]));
    field(binary ? Buffer.from(attribute.BinaryValue!, 'base64') : Buffer.from(attribute.StringValue ?? ''));
  }
  return md5(Buffer.concat(parts));
}

/** One message of a SendMessage or SendMessageBatch request. */
export interface OutgoingMessage {
  readonly id?: string;
  readonly body: string;
  readonly attributes: Record<string, MessageAttribute>;
  readonly delaySeconds: number;
}

/** Why SQS refuses a send: its error's name (JSON protocol) and code (query protocol). */
export interface SendRefusal {
  readonly name: string;
  readonly queryCode: string;
  readonly message: string;
}

/**
 * A queue's message size limit: 256 KiB unless the template sets MaximumMessageSize. SQS raised
 * its default to 1 MiB in 2025; the older, stricter limit is kept so a message that fits here fits
 * every queue.
 */
const DEFAULT_MAXIMUM_MESSAGE_BYTES = 262_144;
const MAX_DELAY_SECONDS = 900;
const MAX_BATCH_ENTRIES = 10;
// The characters SQS accepts in a message (#x9 | #xA | #xD | #x20–#xD7FF | #xE000–#xFFFD | #x10000–#x10FFFF).
const INVALID_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

const messageBytes = (message: OutgoingMessage) =>
  Buffer.byteLength(message.body) +
  Object.entries(message.attributes).reduce(
    (sum, [name, attribute]) =>
      sum +
      Buffer.byteLength(name) +
      Buffer.byteLength(attribute.DataType) +
      (attribute.BinaryValue !== undefined
        ? Buffer.from(attribute.BinaryValue, 'base64').length
        : Buffer.byteLength(attribute.StringValue ?? '')),
    0,
  );

/** A refusal of SQS's own (`AWS.SimpleQueueService.<name>` in the query protocol), or of a parameter check. */
const refusal = (name: string, message: string, queryCode = `AWS.SimpleQueueService.${name}`): SendRefusal => ({
  name,
  queryCode,
  message,
});
const invalid = (message: string) => refusal('InvalidParameterValue', message, 'InvalidParameterValue');

/** What SQS would refuse in a send to `queue`, as SQS checks it: size, delay, characters, batch shape. */
export function sendRefusal(queue: Queue, messages: readonly OutgoingMessage[], batch: boolean): SendRefusal | undefined {
  const limit = queue.maximumMessageBytes ?? DEFAULT_MAXIMUM_MESSAGE_BYTES;
  if (batch) {
    if (messages.length === 0) return refusal('EmptyBatchRequest', 'The batch request does not contain any entries.');
    if (messages.length > MAX_BATCH_ENTRIES)
      return refusal(
        'TooManyEntriesInBatchRequest',
        `Maximum number of entries per request are ${MAX_BATCH_ENTRIES}. You have sent ${messages.length}.`,
      );
    if (new Set(messages.map((message) => message.id)).size !== messages.length)
      return refusal('BatchEntryIdsNotDistinct', 'Id must be distinct among batch entries.');
    const total = messages.reduce((sum, message) => sum + messageBytes(message), 0);
    if (total > limit)
      return refusal('BatchRequestTooLong', `Batch requests cannot be longer than ${limit} bytes. You have sent ${total} bytes.`);
  }
  for (const message of messages) {
    if (message.body.length === 0)
      return refusal('MissingParameter', 'The request must contain the parameter MessageBody.', 'MissingParameter');
    if (messageBytes(message) > limit)
      return invalid(`One or more parameters are invalid. Reason: Message must be shorter than ${limit} bytes.`);
    if (!Number.isInteger(message.delaySeconds) || message.delaySeconds < 0 || message.delaySeconds > MAX_DELAY_SECONDS)
      return invalid(
        `Value ${message.delaySeconds} for parameter DelaySeconds is invalid. Reason: must be between 0 and ${MAX_DELAY_SECONDS}, if provided.`,
      );
    if (INVALID_CHARACTER.test(message.body))
      return refusal('InvalidMessageContents', 'Invalid characters found.', 'InvalidMessageContents');
  }
  return undefined;
}

/**
 * The template's SQS queues, with SQS's delivery semantics as Lambda's event source mappings use
 * them: a poller per mapping takes up to BatchSize visible messages, hides them for the queue's
 * visibility timeout (shortened to `retryDelayMs` so a retry comes within the test), invokes the
 * function, deletes what succeeded (per item with ReportBatchItemFailures), and moves a message
 * received more than the redrive policy's maxReceiveCount times to its dead-letter queue.
 */
export class QueueService {
  readonly batchFailures: BatchFailure[] = [];
  /** Messages moved to a dead-letter queue: queue logical id → message ids. */
  readonly deadLettered: { queue: string; messageId: string; body: string }[] = [];
  private readonly messages = new Map<string, Message[]>();
  private readonly wakers = new Set<() => void>();
  private stopped = false;
  private pollers: Promise<void>[] = [];
  private readonly deployment: Deployment;
  private readonly lambda: LambdaService;
  private readonly evaluator: PolicyEvaluator;
  private readonly retryDelayMs: number;
  private readonly duplicateEvery: number;
  private sent = 0;

  /** Messages delivered twice so far. */
  get duplicated(): number {
    return this.duplicateEvery > 0 ? Math.floor(this.sent / this.duplicateEvery) : 0;
  }

  /**
   * `duplicateEvery`: every so many messages sent (every other one by default) is delivered twice,
   * as SQS's at-least-once delivery may: the copy has the same message id and body, and may reach
   * another poller at the same time. 0 delivers each once.
   */
  constructor(
    deployment: Deployment,
    lambda: LambdaService,
    evaluator: PolicyEvaluator,
    options: { retryDelayMs?: number; duplicateEvery?: number } = {},
  ) {
    this.deployment = deployment;
    this.lambda = lambda;
    this.evaluator = evaluator;
    this.retryDelayMs = options.retryDelayMs ?? 1_000;
    this.duplicateEvery = options.duplicateEvery ?? 2;
    for (const queue of deployment.queues) this.messages.set(queue.arn, []);
  }

  /** A queue by its URL (any host: the SDK may address it by the endpoint it was given) or ARN. */
  find(reference: string): Queue | undefined {
    const path = /^https?:\/\/[^/]+(\/\d{12}\/[^/?]+)/.exec(reference)?.[1];
    return this.deployment.queues.find(
      (queue) => queue.arn === reference || queue.url === reference || (path !== undefined && queue.url.endsWith(path)),
    );
  }

  send(
    queue: Queue,
    body: string,
    attributes: Record<string, MessageAttribute>,
    senderId: string,
    delaySeconds = 0,
  ): { messageId: string; md5OfBody: string } {
    const message: Message = {
      messageId: randomUUID(),
      body,
      md5OfBody: md5(body),
      attributes,
      sentTimestamp: Date.now(),
      senderId,
      receiveCount: 0,
      visibleAt: Date.now() + delaySeconds * 1000,
      inFlight: false,
    };
    this.messages.get(queue.arn)!.push(message);
    if (this.duplicateEvery > 0 && ++this.sent % this.duplicateEvery === 0) this.messages.get(queue.arn)!.push({ ...message });
    this.wake();
    return { messageId: message.messageId, md5OfBody: message.md5OfBody };
  }

  /** Messages waiting or in flight in the queue. */
  depth(queue: Queue): number {
    return this.messages.get(queue.arn)?.length ?? 0;
  }

  /**
   * Starts one poller per enabled event source mapping, as Lambda does once the mapping is
   * created: it polls with the function's execution role, which must allow receiving and deleting.
   */
  async start(): Promise<void> {
    for (const mapping of this.deployment.eventSourceMappings.filter((candidate) => candidate.enabled)) {
      const queue = this.find(mapping.sourceArn);
      if (!queue) continue;
      const principal = this.lambda.principalOf(mapping.function);
      let allowed = true;
      for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes']) {
        const decision = await this.evaluator.authorize(principal, action, queue.arn, {
          resourcePolicy: mergePolicies(queue.policies),
          purpose: `the event source mapping ${mapping.logicalId} polling ${queue.logicalId}`,
        });
        allowed &&= decision.allowed;
      }
      // Lambda refuses to create a mapping whose role cannot read the queue.
      if (!allowed) continue;
      const concurrency = Math.min(mapping.maximumConcurrency ?? 2, 2);
      for (let index = 0; index < concurrency; index++) this.pollers.push(this.poll(mapping, queue));
    }
  }

  /** Resolves once no queue that feeds a function holds a message, or rejects after `timeoutMs`. */
  async idle(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const fed = new Set(this.deployment.eventSourceMappings.map((mapping) => mapping.sourceArn));
    while ([...fed].some((arn) => (this.messages.get(arn)?.length ?? 0) > 0)) {
      if (Date.now() > deadline) throw new Error(`The queues were not drained within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Stops delivering: pollers end after the invocation they are waiting for. */
  halt(): void {
    this.stopped = true;
    this.wake();
  }

  async stop(): Promise<void> {
    this.halt();
    await Promise.allSettled(this.pollers);
  }

  private wake(): void {
    for (const waker of [...this.wakers]) waker();
  }

  private async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }

  /** Takes up to `count` visible messages, moving over-received ones to the dead-letter queue. */
  private receive(queue: Queue, count: number): Message[] {
    const list = this.messages.get(queue.arn)!;
    const now = Date.now();
    const taken: Message[] = [];
    for (const message of [...list]) {
      if (taken.length >= count) break;
      if (message.inFlight || message.visibleAt > now) continue;
      if (queue.deadLetter && message.receiveCount >= queue.deadLetter.maxReceiveCount) {
        list.splice(list.indexOf(message), 1);
        const target = this.find(queue.deadLetter.targetArn);
        if (target) this.messages.get(target.arn)!.push({ ...message, inFlight: false, visibleAt: now });
        this.deadLettered.push({
          queue: target?.logicalId ?? queue.deadLetter.targetArn,
          messageId: message.messageId,
          body: message.body,
        });
        continue;
      }
      message.receiveCount++;
      message.firstReceiveTimestamp ??= now;
      message.inFlight = true;
      taken.push(message);
    }
    return taken;
  }

  private async poll(mapping: EventSourceMapping, queue: Queue): Promise<void> {
    while (!this.stopped) {
      const batch = this.receive(queue, mapping.batchSize);
      if (batch.length === 0) {
        const pending = this.messages.get(queue.arn)!.filter((message) => !message.inFlight);
        const soonest = Math.min(...pending.map((message) => message.visibleAt), Date.now() + 1_000);
        await this.sleep(Math.max(5, soonest - Date.now()));
        continue;
      }
      const event = {
        Records: batch.map((message) => ({
          messageId: message.messageId,
          receiptHandle: `${message.messageId}#${message.receiveCount}`,
          body: message.body,
          attributes: {
            ApproximateReceiveCount: String(message.receiveCount),
            SentTimestamp: String(message.sentTimestamp),
            SenderId: message.senderId,
            ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp),
          },
          messageAttributes: Object.fromEntries(
            Object.entries(message.attributes).map(([name, attribute]) => [
              name,
              {
                stringValue: attribute.StringValue,
                binaryValue: attribute.BinaryValue,
                stringListValues: [],
                binaryListValues: [],
                dataType: attribute.DataType,
              },
            ]),
          ),
          md5OfBody: message.md5OfBody,
          eventSource: 'aws:sqs',
          eventSourceARN: queue.arn,
          awsRegion: REGION,
        })),
      };
      const result = await this.lambda
        .invoke(mapping.function, JSON.stringify(event), `${queue.logicalId} → ${mapping.logicalId}`)
        .catch((error: Error) => ({ functionError: 'Unhandled' as const, payload: JSON.stringify({ errorMessage: error.message }) }));
      const failed = new Set<string>();
      if (result.functionError) {
        for (const message of batch) failed.add(message.messageId);
      } else if (mapping.reportBatchItemFailures) {
        const answer = parse(result.payload) as { batchItemFailures?: { itemIdentifier?: unknown }[] } | null | undefined;
        const identifiers =
          answer === null
            ? []
            : answer?.batchItemFailures === undefined
              ? []
              : answer.batchItemFailures.map((item) => item?.itemIdentifier);
        // An identifier that names no message of the batch fails the whole batch, as Lambda does.
        const invalid =
          answer === undefined || identifiers.some((id) => typeof id !== 'string' || !batch.some((message) => message.messageId === id));
        for (const message of batch) if (invalid || identifiers.includes(message.messageId)) failed.add(message.messageId);
        for (const message of batch.filter((candidate) => failed.has(candidate.messageId))) {
          this.batchFailures.push({
            function: mapping.function.logicalId,
            messageId: message.messageId,
            receiveCount: message.receiveCount,
            reason: invalid ? `invalid batch response ${result.payload}` : 'reported in batchItemFailures',
          });
        }
      }
      const list = this.messages.get(queue.arn)!;
      for (const message of batch) {
        if (failed.has(message.messageId)) {
          message.inFlight = false;
          message.visibleAt = Date.now() + Math.min(queue.visibilityTimeoutSeconds * 1000, this.retryDelayMs);
        } else {
          list.splice(list.indexOf(message), 1);
        }
      }
    }
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
