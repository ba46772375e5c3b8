import { vi } from 'vitest';
import { startGitServer, type Fixture, type GitServer, type GitServerOptions } from './git-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';

/**
 * A git server (see startGitServer) that the API may fetch submissions from: ALLOWED_GIT_HOSTS names
 * its host until the test's vi.unstubAllEnvs().
 */
export async function startAllowedGitServer(repositories: Record<string, Fixture>, options?: GitServerOptions): Promise<GitServer> {
  const git = await startGitServer(repositories, options);
  vi.stubEnv('ALLOWED_GIT_HOSTS', git.host);
  return git;
}

/**
 * A webhook receiver (see startWebhookReceiver) that the API may deliver to: WEBHOOK_ALLOWED_HOSTS
 * names its host until the test's vi.unstubAllEnvs().
 */
export async function startAllowedWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver();
  vi.stubEnv('WEBHOOK_ALLOWED_HOSTS', receiver.host);
  return receiver;
}

/**
 * A file's teardown: closes what it started, in order (skipping any that never started), then
 * undoes its vi.stubEnv settings (the allowed hosts among them).
 */
export async function closeAll(...started: ({ close(): Promise<void> } | undefined)[]): Promise<void> {
  for (const server of started) await server?.close();
  vi.unstubAllEnvs();
}
