import { readFile, writeFile } from 'node:fs/promises';
import { routes } from '#functions/definitions.ts';
import { whoMayCall, type RouteDefinition } from '#shared/http/routes.ts';

/**
 * Two route tables, both rendered from the route definitions between their markers: README.md lists
 * each route once, in a few words, so that the landing page stays short; docs/api.md has every
 * path, who may call it and its whole summary.
 */
const START = '<!-- routes:start (generated from functions/*/definition.ts by `npm run docs`) -->';
const END = '<!-- routes:end -->';
const FULL_START = '<!-- routes-full:start (generated from functions/*/definition.ts by `npm run docs`) -->';
const FULL_END = '<!-- routes-full:end -->';

const allRoutes = (): RouteDefinition[] => Object.values(routes as Record<string, RouteDefinition>);

/** docs/api.md's route table: every path and alias, who may call it, the whole summary. */
export function routesTable(): string {
  const rows = allRoutes().map((route) => {
    const paths = [route.path, ...(route.aliases ?? [])].map((path) => `\`${path}\``).join('<br>');
    return `| ${route.method} | ${paths} | ${whoMayCall[route.access]} | ${route.summary} |`;
  });
  return [FULL_START, '| Method | Path | Who may call it | What it does |', '|---|---|---|---|', ...rows, FULL_END].join('\n');
}

/** A summary's first clause, without its parentheses: "Log in with user_id and password". */
export function shortSummary(summary: string): string {
  const plain = summary.replace(/\s\([^()]*\)/g, '');
  return (plain.split(/(?<=[^.]{8})(?:[:;]|\.\s)\s?/)[0] ?? plain).replace(/\.$/, '').trim();
}

/** README.md's route table: one row per route, its main path and what it does in a few words. */
export function compactRoutesTable(): string {
  const rows = allRoutes().map((route) => `| ${route.method} | \`${route.path}\` | ${shortSummary(route.summary)} |`);
  return [START, '| Method | Path | What it does |', '|---|---|---|', ...rows, END].join('\n');
}

function between(text: string, start: string, end: string, table: string, file: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file} has no routes section markers`);
  return text.slice(0, from) + table + text.slice(to + end.length);
}

/** README.md with its compact route table current. */
export function withRoutesTable(readme: string): string {
  return between(readme, START, END, compactRoutesTable(), 'README.md');
}

/** docs/api.md with its full route table current. */
export function withFullRoutesTable(page: string): string {
  return between(page, FULL_START, FULL_END, routesTable(), 'docs/api.md');
}

if (import.meta.main) {
  await writeFile('README.md', withRoutesTable(await readFile('README.md', 'utf8')));
  await writeFile('docs/api.md', withFullRoutesTable(await readFile('docs/api.md', 'utf8')));
  console.log('Route tables of README.md and docs/api.md updated.');
}
