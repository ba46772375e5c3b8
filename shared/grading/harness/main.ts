/**
 * The grading harness as a program: `node harness.mjs --files <folder> --work <folder>
 * --job <file|-> --result <file|->` reads a HarnessJob (JSON; `-` for standard input), runs it
 * on the files and writes the HarnessResult (JSON; `-` for standard output), signed with the job's
 * `resultKey` when it has one (result-signature.ts). Its standard output
 * carries nothing else, and no test command ever holds it. SIGTERM stops the running test case
 * and exits with status 1, as does any fault, with a message on standard error.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { HarnessJob } from './protocol.ts';
import { signResult } from './result-signature.ts';
import { runJob } from './run-job.ts';

const controller = new AbortController();
process.on('SIGTERM', () => controller.abort(new Error('The harness was stopped.')));

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

try {
  const { values } = parseArgs({
    options: {
      files: { type: 'string' },
      work: { type: 'string' },
      job: { type: 'string' },
      result: { type: 'string' },
    },
    strict: true,
  });
  if (!values.files || !values.work || !values.job || !values.result)
    throw new Error('usage: harness --files <folder> --work <folder> --job <file|-> --result <file|->');
  const job = JSON.parse(values.job === '-' ? await readAll(process.stdin) : await readFile(values.job, 'utf8')) as HarnessJob;
  const result = await runJob(job, { files: values.files, work: values.work }, controller.signal);
  const json = `${JSON.stringify(result)}\n`;
  const text = job.resultKey ? signResult(json, job.resultKey) : json;
  if (values.result === '-') process.stdout.write(text);
  else await writeFile(values.result, text);
} catch (error) {
  process.stderr.write(`harness: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exitCode = 1;
}
