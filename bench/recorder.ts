import * as lowLevel from '@aws-sdk/client-dynamodb';
import { dynamo } from '#shared/data/client.ts';

/** One DynamoDB request as the shared client sent it: the operation, its wire input, when. */
export interface RecordedRequest {
  readonly operation: string;
  /** The marshalled input (what went over the wire), replayable with the low-level command. */
  readonly input: unknown;
  readonly start: number;
  readonly end: number;
}

let recording: RecordedRequest[] | undefined;
let installed = false;

/**
 * Adds a counting middleware to the shared document client (`dynamo()`), for the bench only. It sits
 * in the build step, after lib-dynamodb has marshalled the input and before retries, so each
 * command counts once however often the SDK retries it, and its time spans signing, the HTTP
 * exchange and parsing. Production code never installs it.
 */
export function installRecorder(): void {
  if (installed) return;
  installed = true;
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const list = recording;
      if (!list) return next(args);
      const start = performance.now();
      try {
        return await next(args);
      } finally {
        const operation = String(context.commandName ?? 'unknown').replace(/Command$/, '');
        list.push({ operation, input: args.input, start, end: performance.now() });
      }
    },
    { step: 'build', priority: 'high', name: 'benchRequestRecorder' },
  );
}

/** Runs `action` and returns what it resolved to with the DynamoDB requests it made. */
export async function record<T>(action: () => Promise<T>): Promise<{ value: T; requests: RecordedRequest[] }> {
  installRecorder();
  const requests: RecordedRequest[] = [];
  const previous = recording;
  recording = requests;
  try {
    const value = await action();
    return { value, requests };
  } finally {
    recording = previous;
  }
}

/**
 * Groups requests into sequential round trips ("waves") by the longest chain they lie on: a
 * request belongs to the wave after the latest one among the requests that ended before it
 * started (it may have waited for them); requests in flight together share a wave. So a read
 * started alongside the token check counts once, and whatever waited for either counts again.
 */
export function waves(requests: readonly RecordedRequest[]): RecordedRequest[][] {
  const sorted = [...requests].sort((a, b) => a.start - b.start);
  const depth = new Map<RecordedRequest, number>();
  const groups: RecordedRequest[][] = [];
  for (const request of sorted) {
    let wave = 0;
    for (const earlier of depth.keys()) if (earlier.end <= request.start) wave = Math.max(wave, depth.get(earlier)! + 1);
    depth.set(request, wave);
    (groups[wave] ??= []).push(request);
  }
  return groups;
}

/** `BatchGetItem → Query → BatchGetItem ×2`: one entry per wave. */
export function describeWaves(requests: readonly RecordedRequest[]): string {
  return waves(requests)
    .map((wave) => {
      const counts = new Map<string, number>();
      for (const request of wave) counts.set(request.operation, (counts.get(request.operation) ?? 0) + 1);
      return [...counts].map(([operation, count]) => (count > 1 ? `${operation} ×${count}` : operation)).join(' + ');
    })
    .join(' → ');
}

type AnyCommandClass = new (input: never) => lowLevel.DynamoDBClient extends { send(command: infer C): unknown } ? C : never;

/**
 * Sends the same requests again, straight through the same client and connection pool: wave after
 * wave, the requests of a wave in parallel, as the handler did. Answers (and refused conditions,
 * which DynamoDB evaluates in full before refusing) are ignored: only the time counts.
 */
export async function replay(requests: readonly RecordedRequest[]): Promise<number> {
  const started = performance.now();
  for (const wave of waves(requests)) {
    await Promise.all(
      wave.map(async (request) => {
        const Command = (lowLevel as unknown as Record<string, AnyCommandClass>)[`${request.operation}Command`];
        if (!Command) throw new Error(`No low-level command for ${request.operation}`);
        try {
          await dynamo().send(new Command(request.input as never) as never);
        } catch {
          // A condition refused on replay (the item exists now) still cost DynamoDB its work.
        }
      }),
    );
  }
  return performance.now() - started;
}
