import { Refusal } from '#shared/errors.ts';

/** The message of the Refusal `run` throws; any other error is thrown on, and nothing thrown fails the test. */
export function refusalMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof Refusal) return error.message;
    throw error;
  }
  throw new Error('not refused');
}
