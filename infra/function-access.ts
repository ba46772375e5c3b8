/**
 * Every function of the service and what it may do: the single source of each deployed function's
 * IAM grants and environment (infra/aws/stack.ts) and of each local function's scope
 * (infra/local/functions.ts). Derived from the functions' definitions (functions/<name>/definition.ts)
 * plus the shared middleware's own reads, so a function's grants follow what its code does, not a
 * list kept beside it.
 */
import type { FunctionSetting } from '#shared/config.ts';
import { isCourseAccess } from '#shared/courses/access.ts';
import { FUNCTION_VARIABLE, ROUTE_VARIABLE } from '#shared/environment.ts';
import { tables, type TableDefinition } from '#shared/data/tables.ts';
import type { Access, DataAction, DataUse, FunctionDefinition, ObjectAction, ObjectUse } from '#shared/http/routes.ts';
import { SUBMISSIONS_BUCKET_VARIABLE } from '#shared/storage/objects.ts';
import { AREA_PREFIXES, type ObjectArea } from '#shared/storage/keys.ts';
import { definitions, workers, type FunctionName } from '#functions/definitions.ts';

export type { FunctionName };
export type TableKey = keyof typeof tables;

/** The functions that serve no route. */
export const NOT_FOUND_FUNCTION = workers['not-found'].name;
export const GRADING_WORKER_FUNCTION = workers['grading-worker'].name;
export const WEBHOOK_DELIVERY_FUNCTION = workers['webhook-delivery'].name;
export const SUMMARIES_WORKER_FUNCTION = workers['summaries-worker'].name;
export const WEBHOOK_RELAY_FUNCTION = workers['webhook-relay'].name;
export const COURSE_JOB_SWEEPER_FUNCTION = workers['course-job-sweeper'].name;
export const LTI_SCORE_FUNCTION = workers['lti-score'].name;

/** Every function, routes first. */
export const functionNames = Object.keys(definitions) as readonly FunctionName[];

/** What one function may touch. */
export interface FunctionAccess {
  /** DynamoDB actions per table, sorted; `Query <index>` is a query of that index. */
  readonly data: ReadonlyMap<TableKey, readonly DataAction[]>;
  /** Reads the token signing secret (Secrets Manager GetSecretValue). */
  readonly signingSecret: boolean;
  /** Reads the LTI tool's keys (Secrets Manager GetSecretValue). */
  readonly ltiKey: boolean;
  /** Reads the grading records' signing keys (Secrets Manager GetSecretValue): to sign records, or to publish their public keys. */
  readonly recordKeys: boolean;
  /** S3 actions on the submissions bucket, per key prefix (`''`: every key); empty when it uses none. */
  readonly objects: readonly ObjectGrant[];
  /** Sends wake-ups to the grading queue (SQS SendMessage). */
  readonly sendsToGradingQueue: boolean;
  /** Runs grading jobs in the grading sandbox (in AWS: CodeBuild builds and the jobs bucket). */
  readonly runsGradingSandbox: boolean;
  /** Sends to the webhook queue (SQS SendMessage): publishes events, or queues delivery attempts. */
  readonly publishesEvents?: boolean;
  /** Sends summaries jobs to the summaries queue (SQS SendMessage). */
  readonly sendsToSummariesQueue?: boolean;
  /** Sends grades for linked LMS courses to the LTI score queue (SQS SendMessage). */
  readonly sendsToLtiScoreQueue?: boolean;
  /** The route key it serves first, for messages (`GET /api/me`). */
  readonly route?: string;
  /** The deployment settings given only to the functions that read them which its code reads (its definition's `settings`). */
  readonly settings: readonly FunctionSetting[];
}

/** Actions on the keys of the submissions bucket that start with `prefix`. */
export interface ObjectGrant {
  readonly prefix: string;
  readonly actions: readonly ObjectAction[];
}

/** A definition's `objects` as grants, one per key prefix, actions sorted. */
export function objectGrants(use: ObjectUse | undefined): ObjectGrant[] {
  if (!use) return [];
  const areas: [string, readonly ObjectAction[]][] = Array.isArray(use)
    ? [['', use as readonly ObjectAction[]]]
    : Object.entries(use as Partial<Record<ObjectArea, readonly ObjectAction[]>>).map(([area, actions]) => {
        const prefix = AREA_PREFIXES[area as ObjectArea] as string | undefined;
        if (prefix === undefined) throw new Error(`objects names an unknown area of the submissions bucket "${area}"`);
        return [prefix, actions ?? []];
      });
  return areas.filter(([, actions]) => actions.length > 0).map(([prefix, actions]) => ({ prefix, actions: [...new Set(actions)].sort() }));
}

/**
 * What the shared middleware reads for a route (shared/http/middleware/authenticate.ts): the token
 * check's one BatchGetItem of the session and the caller's profile, on course routes with the
 * course and the caller's enrollment; routes open to the course's access-group staff also ask the
 * access group (a Query) when the caller is not staff of the course itself, then read the courses it
 * names and the caller's enrollments in them (BatchGetItem, granted above).
 */
export function middlewareData(access: Access): DataUse {
  if (access === 'public') return {};
  const tokenCheck: Record<string, DataAction[]> = { sessions: ['BatchGetItem'], users: ['BatchGetItem'] };
  if (!isCourseAccess(access)) return tokenCheck;
  return {
    ...tokenCheck,
    courses: ['BatchGetItem'],
    enrollments: ['BatchGetItem'],
    ...(access === 'course:instructor-or-group-staff' ? { accessGroups: ['Query'] } : {}),
  };
}

export function functionAccess(name: FunctionName): FunctionAccess {
  const definition: FunctionDefinition = definitions[name];
  if (definition.kind === 'worker') {
    return {
      data: merged(definition.data ?? {}, `functions/${name}`),
      objects: objectGrants(definition.objects),
      signingSecret: false,
      ltiKey: definition.ltiKey === 'read',
      recordKeys: definition.recordKeys !== undefined,
      sendsToGradingQueue: definition.queue === 'send',
      runsGradingSandbox: definition.gradingSandbox === true,
      ...(definition.events === 'publish' ? { publishesEvents: true } : {}),
      ...(definition.summariesQueue === 'send' ? { sendsToSummariesQueue: true } : {}),
      ...(definition.ltiScores === 'send' ? { sendsToLtiScoreQueue: true } : {}),
      settings: definition.settings ?? [],
    };
  }
  const route = definition;
  const routeKey = `${route.method} ${route.path}`;
  const data = merged(middlewareData(route.access), route.data ?? {}, routeKey);
  return {
    data,
    objects: objectGrants(route.objects),
    // Routes that are not public verify tokens; the public token route signs them.
    signingSecret: route.access !== 'public' || (data.get('sessions') ?? []).includes('PutItem'),
    ltiKey: route.ltiKey === 'read',
    recordKeys: route.recordKeys !== undefined,
    sendsToGradingQueue: route.queue === 'send',
    publishesEvents: route.events === 'publish',
    sendsToSummariesQueue: route.summariesQueue === 'send',
    sendsToLtiScoreQueue: route.ltiScores === 'send',
    runsGradingSandbox: false,
    route: routeKey,
    settings: route.settings ?? [],
  };
}

function merged(...uses: [DataUse, ...(DataUse | string)[]]): Map<TableKey, DataAction[]> {
  const where = uses.find((use): use is string => typeof use === 'string') ?? 'a function';
  const result = new Map<TableKey, Set<DataAction>>();
  for (const use of uses) {
    if (typeof use === 'string') continue;
    for (const [key, actions] of Object.entries(use) as [TableKey, readonly DataAction[]][]) {
      const table: TableDefinition | undefined = tables[key];
      if (!table) throw new Error(`${where} names an unknown table "${key}"`);
      for (const action of actions) {
        const index = /^Query (.+)$/.exec(action)?.[1];
        if (index && !table.globalIndexes?.some((candidate) => candidate.name === index)) {
          throw new Error(`${where} queries "${index}", which is not an index of the ${table.id} table`);
        }
      }
      const set = result.get(key) ?? new Set<DataAction>();
      for (const action of actions) set.add(action);
      result.set(key, set);
    }
  }
  return new Map([...result].map(([key, set]) => [key, [...set].sort()]));
}

/** Where a function's resources are: deployed, CloudFormation tokens; locally, local names. */
export interface ResourceBindings {
  tableName(key: TableKey): string;
  /** The variable and value naming the signing secret (an ARN in AWS, a file locally). */
  readonly signingSecret: { readonly variable: string; readonly value: string };
  /** The variable and value naming the LTI tool's keys (an ARN in AWS, a file locally). */
  readonly ltiKey: { readonly variable: string; readonly value: string };
  /** The variable and value naming the grading records' signing keys (an ARN in AWS, a file locally). */
  readonly recordKeys: { readonly variable: string; readonly value: string };
  readonly gradingQueueUrl: string;
  readonly webhookQueueUrl: string;
  readonly summariesQueueUrl: string;
  readonly ltiScoreQueueUrl: string;
  /** The submissions bucket's name, for functions that declare `objects`. */
  readonly submissionsBucket: string;
  /** The grading sandbox's variables (in AWS: the CodeBuild project, jobs bucket, harness, images); none locally, where it is bubblewrap. */
  readonly gradingSandbox?: Readonly<Record<string, string>>;
}

/** The variables a function's environment may name resources with; nothing else may provide them. */
export const RESOURCE_VARIABLES: ReadonlySet<string> = new Set([
  ...Object.values(tables).map((table: TableDefinition) => table.environmentVariable),
  'SIGNING_SECRET_ARN',
  'SIGNING_SECRET_FILE',
  'LTI_KEY_ARN',
  'LTI_KEY_FILE',
  'RECORD_KEYS_ARN',
  'RECORD_KEYS_FILE',
  'GRADING_QUEUE_URL',
  'WEBHOOK_QUEUE_URL',
  'SUMMARIES_QUEUE_URL',
  'LTI_SCORE_QUEUE_URL',
  'GRADING_PROJECT',
  'GRADING_BUCKET',
  'GRADING_HARNESS',
  'GRADING_IMAGES',
  SUBMISSIONS_BUCKET_VARIABLE,
  FUNCTION_VARIABLE,
  ROUTE_VARIABLE,
]);

/** The resource variables of one function: its name and route, its tables, and what else it was granted. */
export function functionEnvironment(name: FunctionName, bindings: ResourceBindings): Record<string, string> {
  const access = functionAccess(name);
  const environment: Record<string, string> = { [FUNCTION_VARIABLE]: name };
  if (access.route) environment[ROUTE_VARIABLE] = access.route;
  for (const key of access.data.keys()) environment[tables[key].environmentVariable] = bindings.tableName(key);
  if (access.signingSecret) environment[bindings.signingSecret.variable] = bindings.signingSecret.value;
  if (access.ltiKey) environment[bindings.ltiKey.variable] = bindings.ltiKey.value;
  if (access.recordKeys) environment[bindings.recordKeys.variable] = bindings.recordKeys.value;
  if (access.sendsToGradingQueue) environment.GRADING_QUEUE_URL = bindings.gradingQueueUrl;
  if (access.publishesEvents) environment.WEBHOOK_QUEUE_URL = bindings.webhookQueueUrl;
  if (access.sendsToSummariesQueue) environment.SUMMARIES_QUEUE_URL = bindings.summariesQueueUrl;
  if (access.sendsToLtiScoreQueue) environment.LTI_SCORE_QUEUE_URL = bindings.ltiScoreQueueUrl;
  if (access.objects.length > 0) environment[SUBMISSIONS_BUCKET_VARIABLE] = bindings.submissionsBucket;
  if (access.runsGradingSandbox) Object.assign(environment, bindings.gradingSandbox ?? {});
  return environment;
}
