import { runSubmission } from '#shared/grading/runner.ts';
import type { RunRequest, RunResult } from '#shared/grading/runner-protocol.ts';

/**
 * The grading runner in AWS: a plain Lambda function (not an HTTP route) invoked by the grading
 * worker. Its role grants nothing and its environment holds no secrets, so student code running
 * in it has nothing to steal.
 */
export const handler = async (event: RunRequest): Promise<RunResult> => runSubmission(event);
