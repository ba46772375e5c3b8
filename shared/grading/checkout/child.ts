/**
 * The checkout as a process of its own (started by process.ts, with no credentials and
 * a memory and time limit): reads a CheckoutChildInput as JSON from stdin, checks the repository
 * out into its folder and writes one CheckoutChildOutput line to stdout, then exits at once,
 * whatever the git client still had under way.
 */
import { checkoutInto } from './checkout.ts';
import { CheckoutError, UnreachableCommitError } from './error.ts';
import type { CheckoutChildInput, CheckoutChildOutput } from './process.ts';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const answer = (output: CheckoutChildOutput) => process.stdout.write(`${JSON.stringify(output)}\n`, () => process.exit(0));

try {
  const input = JSON.parse(await readStdin()) as CheckoutChildInput;
  // Should the parent be gone, nobody kills this process at its time limit: it stops by itself.
  setTimeout(() => process.exit(2), Math.max(0, input.deadline - Date.now()) + 5_000).unref();
  answer({ checkedOut: await checkoutInto(input.request, input.root) });
} catch (error) {
  if (error instanceof UnreachableCommitError) answer({ refused: error.message, unreachable: error.commit });
  else if (error instanceof CheckoutError) answer({ refused: error.message });
  else answer({ fault: (error as Error | null)?.stack ?? String(error) });
}
