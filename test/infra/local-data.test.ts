import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ensureSecretFile } from '#shared/auth/signing-secret.ts';
import { lockDataFolder, startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';

const scratch = await mkdtemp(join(tmpdir(), 'local-data-test-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** The local addresses (hex, as /proc/net/tcp{,6} writes them) of the sockets listening on `port`. */
async function listeningAddresses(port: number): Promise<string[]> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const addresses: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of (await readFile(table, 'utf8').catch(() => '')).split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === '0A' && local?.endsWith(`:${hexPort}`)) addresses.push(local.slice(0, -5)); // 0A: LISTEN
    }
  }
  return addresses;
}

const LOOPBACK_V4 = '0100007F'; // 127.0.0.1 in /proc/net/tcp's byte order
const LOOPBACK_V4_MAPPED = '0000000000000000FFFF00000100007F'; // ::ffff:127.0.0.1
const isLoopback = (hex: string) => hex === LOOPBACK_V4 || hex === LOOPBACK_V4_MAPPED || hex === '00000000000000000000000001000000';
const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe('DynamoDB Local', () => {
  it('(the check itself) sees a server listening on every interface', async () => {
    const { createServer } = await import('node:net');
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '::', done)); // listening only: no traffic
    try {
      const addresses = await listeningAddresses((server.address() as { port: number }).port);
      expect(addresses.filter((address) => !isLoopback(address)).length).toBeGreaterThan(0);
    } finally {
      server.close();
    }
  });

  it("listens on the loopback interface only (the test run's own, in memory)", async () => {
    const port = Number(new URL(inject('dynamodbEndpoint')).port);
    const addresses = await listeningAddresses(port);
    expect(addresses.length).toBeGreaterThan(0);
    // 00000000 / all zeros would be every interface, as the jar alone listens.
    expect(addresses.filter((address) => !isLoopback(address))).toEqual([]);
  });

  it('keeps a data folder 0700 with files 0600, its own database file included, and listens on loopback', async () => {
    const dataDir = join(scratch, 'data');
    await mkdir(join(dataDir, 'repositories', 'hw'), { recursive: true, mode: 0o755 });
    await writeFile(join(dataDir, 'old-file'), 'x', { mode: 0o644 });
    await writeFile(join(dataDir, 'repositories', 'hw', 'run.sh'), 'x', { mode: 0o755 });
    await chmod(dataDir, 0o755);
    const dynamoDb = await startDynamoDbLocal({ dataDir });
    try {
      const addresses = await listeningAddresses(Number(new URL(dynamoDb.endpoint).port));
      expect(addresses.length).toBeGreaterThan(0);
      expect(addresses.filter((address) => !isLoopback(address))).toEqual([]);
    } finally {
      await dynamoDb.stop();
    }
    expect(await mode(dataDir)).toBe(0o700);
    expect(await mode(join(dataDir, 'repositories', 'hw'))).toBe(0o700);
    expect(await mode(join(dataDir, 'old-file'))).toBe(0o600);
    expect(await mode(join(dataDir, 'repositories', 'hw', 'run.sh'))).toBe(0o700);
    expect(await mode(join(dataDir, 'shared-local-instance.db'))).toBe(0o600); // written by Java under umask 077
  }, 60_000);

  it('locks a data folder without following links', async () => {
    const outside = join(scratch, 'outside');
    await writeFile(outside, 'x', { mode: 0o644 });
    const dataDir = join(scratch, 'linked');
    await mkdir(dataDir);
    const { symlink } = await import('node:fs/promises');
    await symlink(outside, join(dataDir, 'link'));
    await lockDataFolder(dataDir);
    expect(await mode(outside)).toBe(0o644);
  });
});

describe('the local signing secret file', () => {
  it('is created 0600, and an existing file readable by others becomes 0600 without changing', async () => {
    const created = join(scratch, 'new-secret');
    await ensureSecretFile(created);
    expect(await mode(created)).toBe(0o600);
    const existing = join(scratch, 'old-secret');
    await writeFile(existing, 'kept\n', { mode: 0o644 });
    await ensureSecretFile(existing);
    expect(await mode(existing)).toBe(0o600);
    expect(await readFile(existing, 'utf8')).toBe('kept\n');
  });
});
