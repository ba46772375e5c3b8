import { existsSync } from 'node:fs';
import { measureCommitBinding } from './commit.ts';
import { median, ms, progress, quantile, ratio, type Row, type SectionResult } from './common.ts';
import { record, replay } from './recorder.ts';
import { scenarios, type Scenario } from './scenarios.ts';
import { invoke, type Envelope, type World } from './world.ts';

const isSuccess = (answer: Envelope) => answer.status === 'success';

const SECTION = 'Warm latency (in process)';
const WARM_UP = 10;

/**
 * Each endpoint's handler called in process with API Gateway events, against DynamoDB Local; after
 * every call its DynamoDB requests are sent again directly (same client, same waves), so the
 * service's own overhead shows as the ratio of the two medians.
 */
export async function measureLatency(world: World): Promise<SectionResult> {
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const scenario of scenarios(world)) {
    if (!existsSync(`functions/${scenario.route}/handler.ts`)) continue;
    progress(`latency: ${scenario.route} (${scenario.iterations} calls)`);
    rows.push(await measureOne(scenario));
  }
  rows.push(await measureCommitBinding(world));
  notes.push(
    '- Warm latency: the handler column includes everything the function does (token verification, body parsing, validation, the envelope) plus its DynamoDB requests; the DynamoDB column replays the same requests directly. `issue-token` is dominated by scrypt (N=2^15, r=8, p=3), by design.',
  );
  return { rows, notes };
}

async function measureOne(scenario: Scenario): Promise<Row> {
  const handlerTimes: number[] = [];
  const directTimes: number[] = [];
  let failures = 0;
  const warmUp = Math.min(WARM_UP, Math.ceil(scenario.iterations / 5));
  for (let i = 0; i < warmUp + scenario.iterations; i++) {
    const event = await scenario.prepare(i);
    const started = performance.now();
    const { value: answer, requests } = await record(() => invoke(scenario.route, event));
    const elapsed = performance.now() - started;
    const direct = await replay(requests);
    if (i < warmUp) continue;
    if (!(scenario.ok ?? isSuccess)(answer)) failures++;
    handlerTimes.push(elapsed);
    directTimes.push(direct);
  }
  const [p50, p99, d50, d99] = [median(handlerTimes), quantile(handlerTimes, 0.99), median(directTimes), quantile(directTimes, 0.99)];
  return {
    section: SECTION,
    name: scenario.route,
    target: 'overhead shown',
    baseline: d99 < 0.01 ? 'no DynamoDB requests' : `DynamoDB alone: p50 ${ms(d50)}, p99 ${ms(d99)}`,
    measured: `p50 ${ms(p50)}, p99 ${ms(p99)}${d99 < 0.01 ? '' : ` (${ratio(p50 / d50)} DynamoDB, +${ms(p50 - d50)})`}${failures ? `; ${failures} calls failed` : ''}`,
    met: failures ? false : undefined,
  };
}
