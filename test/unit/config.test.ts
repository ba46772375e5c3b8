import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { config, configNames, parseSetting, validateConfig } from '#shared/config.ts';
import { runAsFunction, type FunctionScope } from '#shared/environment.ts';
import { tables } from '#shared/data/tables.ts';
import { DEFAULT_BOUNDS, LIMIT_SPECS } from '#shared/grading/worker/limits.ts';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the configuration module', () => {
  it('reads a setting as the environment holds it now, with its default when unset', () => {
    vi.stubEnv('TOKEN_TTL_SECONDS', '');
    expect(config('TOKEN_TTL_SECONDS')).toBe(30 * 24 * 60 * 60);
    vi.stubEnv('TOKEN_TTL_SECONDS', '3600');
    expect(config('TOKEN_TTL_SECONDS')).toBe(3600);
    vi.stubEnv('TOKEN_TTL_SECONDS', '0');
    expect(config('TOKEN_TTL_SECONDS')).toBe(0);
  });

  it('refuses a bad value with a message naming the variable', () => {
    vi.stubEnv('TOKEN_TTL_SECONDS', 'x');
    expect(() => config('TOKEN_TTL_SECONDS')).toThrow('TOKEN_TTL_SECONDS must be a whole number of at least 0, not "x"');
    vi.stubEnv('MAX_BODY_BYTES', '0');
    expect(() => config('MAX_BODY_BYTES')).toThrow('MAX_BODY_BYTES must be at least 1');
    expect(() => parseSetting('SIGNING_SECRET_GRACE_SECONDS', '1.5')).toThrow(
      'SIGNING_SECRET_GRACE_SECONDS must be a whole number of at least 0, not "1.5"',
    );
  });

  it('validates the whole configuration at once, naming every bad setting', () => {
    expect(validateConfig()).toMatchObject({ TOKEN_ISSUER: 'course-submission-api', LOGIN_MAX_FAILURES: 5 });
    vi.stubEnv('TOKEN_TTL_SECONDS', '-1');
    vi.stubEnv('LOGIN_WINDOW_SECONDS', '0');
    expect(() => validateConfig()).toThrow(
      'TOKEN_TTL_SECONDS must be a whole number of at least 0, not "-1"; LOGIN_WINDOW_SECONDS must be at least 1',
    );
  });

  it('reports, rather than refuses, the settings that fall back to a safe default', () => {
    vi.stubEnv('GRADING_SANDBOX', 'none');
    expect(config('GRADING_SANDBOX')).toEqual({ mode: 'bwrap', problem: expect.stringContaining('GRADING_SANDBOX must be') });
    vi.stubEnv('WEBHOOK_RETRY_SCHEDULE', 'ten');
    expect(config('WEBHOOK_RETRY_SCHEDULE')).toMatchObject({ value: [5, 300, 1800, 7200], problem: expect.stringContaining('ten') });
    vi.stubEnv('GRADING_MAX_DISK_MIB', '0');
    expect(config('GRADING_MAX_DISK_MIB')).toEqual({
      value: 1024,
      problem: 'GRADING_MAX_DISK_MIB must be a whole number of at least 1, not "0"; using 1024',
    });
    vi.stubEnv('GRADING_LEASE_SECONDS', 'soon');
    expect(config('GRADING_LEASE_SECONDS')).toBe(900);
    expect(() => validateConfig()).not.toThrow();
  });

  it('reads through the running function’s scope, as the local server runs each function', () => {
    vi.stubEnv('VCS_BASE_URL', 'https://git.example.org//');
    const scope: FunctionScope = {
      functionName: 'me',
      variables: { VCS_BASE_URL: 'https://scoped.example.org/' },
      resourceVariables: new Set(['VCS_BASE_URL']),
      dataGrants: new Map(),
    };
    expect(config('VCS_BASE_URL')).toBe('https://git.example.org');
    expect(runAsFunction(scope, () => config('VCS_BASE_URL'))).toBe('https://scoped.example.org');
  });

  it('declares the grading bounds the limits module reads', () => {
    for (const spec of Object.values(LIMIT_SPECS)) expect(configNames).toContain(spec.variable);
    expect(DEFAULT_BOUNDS).toEqual({ processes: 256, memoryMib: 2048, cpuSeconds: 600, fileSizeMib: 1024, diskMib: 1024 });
  });

  it('is documented in docs/configuration.md’s table of environment variables, setting by setting', () => {
    const documented = documentedVariables();
    expect(configNames.filter((name) => !documented.has(name))).toEqual([]);
  });

  it('documents every table’s name variable in the same table', () => {
    const documented = documentedVariables();
    const variables = Object.values(tables).map((table) => table.environmentVariable);
    expect(variables.filter((name) => !documented.has(name))).toEqual([]);
  });

  it('leaves the process environment to the environment module it reads through', () => {
    const root = new URL('../../', import.meta.url);
    const sources = ['functions', 'shared'].flatMap((folder) =>
      readdirSync(new URL(folder, root), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .map((file) => `${folder}/${file}`),
    );
    const readers = sources.filter((file) => readFileSync(new URL(file, root), 'utf8').includes('process.env'));
    // builds/input.ts is no function's code: it runs alone in a grading build, whose environment is CodeBuild's.
    expect(readers).toEqual(['shared/environment.ts', 'shared/grading/builds/input.ts']);
  });
});

/** The variables named in docs/configuration.md's section on environment variables. */
function documentedVariables(): Set<string> {
  const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  const start = page.indexOf('## Environment variables');
  const end = page.indexOf('\n## ', start + 1);
  expect(start).toBeGreaterThanOrEqual(0);
  const section = page.slice(start, end < 0 ? undefined : end);
  return new Set([...section.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!));
}
