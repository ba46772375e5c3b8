/**
 * The runner as a process of its own: reads a RunRequest as JSON from stdin, writes a line
 * `{"checkedOut":"<commit>"}` once the checkout resolved its commit, then the RunResult as a line
 * of JSON to stdout. Started by in-process.ts with an environment holding no credentials.
 * SIGTERM stops the running command and exits with status 1; a fault of this machine exits
 * with status 1 and a message on stderr.
 */
import { runSubmission } from './runner.ts';
import type { CheckedOutLine, RunRequest } from '../runner-protocol.ts';

const controller = new AbortController();
process.on('SIGTERM', () => controller.abort(new Error('The runner was stopped.')));

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

try {
  const request = JSON.parse(await readStdin()) as RunRequest;
  const result = await runSubmission(request, {
    signal: controller.signal,
    onCheckout: async (commit) => {
      const line: CheckedOutLine = { checkedOut: commit };
      process.stdout.write(`${JSON.stringify(line)}\n`);
    },
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (error) {
  process.stderr.write(`runner: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exitCode = 1;
}
