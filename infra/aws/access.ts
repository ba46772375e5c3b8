import { tables } from '#shared/data/tables.ts';
import type { RouteDefinition } from '#shared/http/routes.ts';

export type TableKey = keyof typeof tables;
export type TableAccess = 'read' | 'read-write';

/** What one route's function may touch: derived from the route table, never listed by hand. */
export interface FunctionAccess {
  readonly tables: ReadonlyMap<TableKey, TableAccess>;
  /** Whether it signs or verifies tokens, so reads the signing secret. */
  readonly signingSecret: boolean;
  /** Whether it wakes the grading workers, so sends to the grading queue. */
  readonly sendsToGradingQueue: boolean;
}

/** The token check reads these for every route that is not `public` (one BatchGetItem). */
const TOKEN_CHECK_READS: readonly TableKey[] = ['sessions', 'users'];

export function functionAccess(route: RouteDefinition): FunctionAccess {
  const granted = new Map<TableKey, TableAccess>();
  if (route.access !== 'public') for (const key of TOKEN_CHECK_READS) granted.set(key, 'read');
  for (const [key, access] of Object.entries(route.tables ?? {}) as [TableKey, TableAccess][]) {
    if (!(key in tables)) throw new Error(`The route ${route.method} ${route.path} names an unknown table "${key}"`);
    if (granted.get(key) !== 'read-write') granted.set(key, access);
  }
  return {
    tables: granted,
    // Routes that are not public verify tokens; a public route that writes sessions issues them.
    signingSecret: route.access !== 'public' || granted.get('sessions') === 'read-write',
    sendsToGradingQueue: route.queue === 'send',
  };
}

/** What the grading worker uses (`shared/grading/worker.ts`): it claims jobs, records versions' states and results. */
export const GRADING_WORKER_TABLES: ReadonlyMap<TableKey, TableAccess> = new Map([
  ['jobs', 'read-write'],
  ['submissions', 'read-write'],
  ['results', 'read-write'],
  ['gradeables', 'read'],
]);
