import { readFile, writeFile } from 'node:fs/promises';
import { routes, type RouteDefinition } from '#shared/http/routes.ts';

const START = '<!-- routes:start (generated from shared/http/routes.ts by `npm run docs`) -->';
const END = '<!-- routes:end -->';

const who: Record<RouteDefinition['access'], string> = {
  public: 'anyone, no token needed',
  'token-optional': 'anyone; a token, when sent, must be valid',
  user: 'any valid token',
  faculty: 'faculty and superusers',
  superuser: 'superusers',
  'course:member': 'course members',
  'course:staff': 'course instructors and graders',
  'course:instructor': 'course instructors',
  'course:instructor-or-group-staff': "course instructors; staff of the course's access group may read",
};

/** The README's endpoint table, rendered from the route table. */
export function routesTable(): string {
  const rows = Object.values(routes as Record<string, RouteDefinition>).map((route) => {
    const paths = [route.path, ...(route.aliases ?? [])].map((path) => `\`${path}\``).join('<br>');
    return `| ${route.method} | ${paths} | ${who[route.access]} | ${route.summary} |`;
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
