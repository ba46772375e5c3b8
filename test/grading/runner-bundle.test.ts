import { readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUNNER_SOURCE, runnerEntry } from '#shared/grading/runner/bundle.ts';

describe('the runner bundle', () => {
  it('is one read-only module in a folder only this user may enter, the harness inside, esbuild not needed', async () => {
    const entry = await runnerEntry();
    expect(entry).not.toBe(RUNNER_SOURCE);
    expect(entry).toMatch(/\.mjs$/);
    expect(await runnerEntry()).toBe(entry);
    const folder = await stat(dirname(entry));
    expect(folder.uid).toBe(process.getuid?.());
    expect(folder.mode & 0o777).toBe(0o700);
    expect((await stat(entry)).mode & 0o777).toBe(0o444);
    const text = await readFile(entry, 'utf8');
    expect(text).toContain('The grading harness (shared/grading/harness/main.ts), bundled.');
    expect(text).not.toMatch(/from ["']esbuild["']/);
  });
});
