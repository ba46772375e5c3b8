import { readFile, writeFile } from 'node:fs/promises';
import { routes } from '#functions/definitions.ts';
import { whoMayCall, type RouteDefinition } from '#shared/http/routes.ts';

const START = '<!-- routes:start (generated from functions/*/definition.ts by `npm run docs`) -->';
const END = '<!-- routes:end -->';

/** The README's endpoint table, rendered from the route definitions. */
export function routesTable(): string {
  const rows = Object.values(routes as Record<string, RouteDefinition>).map((route) => {
    const paths = [route.path, ...(route.aliases ?? [])].map((path) => `\`${path}\``).join('<br>');
    return `| ${route.method} | ${paths} | ${whoMayCall[route.access]} | ${route.summary} |`;
  });
  return [START, '| Method | Path | Who may call it | What it does |', '|---|---|---|---|', ...rows, END].join('\n');
}

export function withRoutesTable(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error('README.md has no routes section markers');
  return readme.slice(0, start) + routesTable() + readme.slice(end + END.length);
}

if (import.meta.main) {
  const readme = await readFile('README.md', 'utf8');
  await writeFile('README.md', withRoutesTable(readme));
  console.log('README.md endpoint table updated.');
}
