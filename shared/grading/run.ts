import type { RunRequest, RunResult } from './runner-protocol.ts';

/**
 * Hands a submission to the runner. In AWS that is the permission-less runner function
 * (GRADING_RUNNER_FUNCTION); locally a separate process with an empty environment.
 */
export async function runGrading(request: RunRequest): Promise<RunResult> {
  const functionName = process.env.GRADING_RUNNER_FUNCTION;
  if (!functionName) return (await import('./run-in-process.ts')).runIsolated(request);
  const { LambdaClient, InvokeCommand } = await import('@aws-sdk/client-lambda');
  lambda ??= new LambdaClient({});
  const output = await lambda.send(new InvokeCommand({ FunctionName: functionName, Payload: JSON.stringify(request) }));
  if (output.FunctionError) throw new Error(`The grading runner failed: ${output.FunctionError}`);
  return JSON.parse(Buffer.from(output.Payload ?? []).toString('utf8')) as RunResult;
}

let lambda: import('@aws-sdk/client-lambda').LambdaClient | undefined;
