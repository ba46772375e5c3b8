import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { compactRoutesTable, routesTable, shortSummary, withFullRoutesTable, withRoutesTable } from '#infra/api-docs.ts';
import { routeKeys, routes } from '#functions/definitions.ts';

describe('route tables (run `npm run docs` after changing routes)', () => {
  it('README.md lists every route of the route table, each in a few words', async () => {
    const readme = await readFile('README.md', 'utf8');
    expect(withRoutesTable(readme)).toBe(readme);
    for (const route of Object.values(routes)) expect(compactRoutesTable()).toContain(`| ${route.method} | \`${route.path}\` |`);
  });

  it('docs/api.md lists every route and alias with who may call it and its whole summary', async () => {
    const page = await readFile('docs/api.md', 'utf8');
    expect(withFullRoutesTable(page)).toBe(page);
    for (const key of routeKeys) expect(routesTable()).toContain(`\`${key.path}\``);
  });

  it('shortens a summary to its first clause, without parentheses', () => {
    expect(shortSummary('Log in with user_id and password; returns a token and invalidates the previous one.')).toBe(
      'Log in with user_id and password',
    );
    expect(shortSummary("The caller's (or, for staff, user_id's) versions, newest first: whole by default.")).toBe(
      "The caller's versions, newest first",
    );
    expect(shortSummary('A regrade job object with its progress now: queued, running or done.')).toBe(
      'A regrade job object with its progress now',
    );
  });
});
