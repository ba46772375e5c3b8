import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { routesTable, withRoutesTable } from '#infra/api-docs.ts';
import { routeKeys } from '#functions/definitions.ts';

describe('README endpoint table', () => {
  it('lists every route of the route table (run `npm run docs` after changing routes)', async () => {
    const readme = await readFile('README.md', 'utf8');
    expect(withRoutesTable(readme)).toBe(readme);
    for (const key of routeKeys) expect(routesTable()).toContain(`\`${key.path}\``);
  });
});
