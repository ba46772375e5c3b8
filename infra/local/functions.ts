import { functionSettings } from '#shared/config.ts';
import type { FunctionScope } from '#shared/environment.ts';
import { tables } from '#shared/data/tables.ts';
import { functionAccess, functionEnvironment, RESOURCE_VARIABLES, type FunctionName, type TableKey } from '#infra/function-access.ts';
import { localTableName } from './tables.ts';

/** Locally, the grading queue is in-process; this is its "URL". */
export const LOCAL_GRADING_QUEUE_URL = 'local:grading-queue';
export const LOCAL_WEBHOOK_QUEUE_URL = 'local:webhook-queue';
export const LOCAL_SUMMARIES_QUEUE_URL = 'local:summaries-queue';
export const LOCAL_LTI_SCORE_QUEUE_URL = 'local:lti-score-queue';

/** The local submissions bucket: `SUBMISSIONS_BUCKET` of the process (the local endpoint's), or `submissions`. */
export const localSubmissionsBucket = (): string => process.env.SUBMISSIONS_BUCKET || LOCAL_SUBMISSIONS_BUCKET;
export const LOCAL_SUBMISSIONS_BUCKET = 'submissions';

const scopes = new Map<string, FunctionScope>();

/**
 * The scope a local function runs in: exactly the resource variables its deployed function gets
 * (computed by the same code as the stack, with local names), the same DynamoDB grants, and of the
 * settings given only to the functions that read them those its definition names, so a table,
 * action or setting missing from its definition fails locally as it would in AWS.
 */
export function localFunctionScope(name: FunctionName): FunctionScope {
  // Every request asks; the answer changes only with the local names (tests switch TABLE_PREFIX).
  const key = `${name}\n${process.env.TABLE_PREFIX ?? ''}\n${process.env.SIGNING_SECRET_FILE ?? ''}\n${process.env.LTI_KEY_FILE ?? ''}\n${process.env.RECORD_KEYS_FILE ?? ''}\n${localSubmissionsBucket()}`;
  let scope = scopes.get(key);
  if (!scope) scopes.set(key, (scope = computeScope(name)));
  return scope;
}

function computeScope(name: FunctionName): FunctionScope {
  const variables = functionEnvironment(name, {
    tableName: (key: TableKey) => localTableName(tables[key]),
    signingSecret: { variable: 'SIGNING_SECRET_FILE', value: process.env.SIGNING_SECRET_FILE ?? '' },
    ltiKey: { variable: 'LTI_KEY_FILE', value: process.env.LTI_KEY_FILE ?? '' },
    recordKeys: { variable: 'RECORD_KEYS_FILE', value: process.env.RECORD_KEYS_FILE ?? '' },
    gradingQueueUrl: LOCAL_GRADING_QUEUE_URL,
    webhookQueueUrl: LOCAL_WEBHOOK_QUEUE_URL,
    summariesQueueUrl: LOCAL_SUMMARIES_QUEUE_URL,
    ltiScoreQueueUrl: LOCAL_LTI_SCORE_QUEUE_URL,
    submissionsBucket: localSubmissionsBucket(),
  });
  const access = functionAccess(name);
  const dataGrants = new Map<string, ReadonlySet<string>>();
  for (const [key, actions] of access.data) dataGrants.set(localTableName(tables[key]), new Set(actions));
  const objectGrants = access.objects.map(({ prefix, actions }) => ({ prefix, actions: new Set<string>(actions) }));
  const withheldSettings = new Set<string>(functionSettings.filter((setting) => !access.settings.includes(setting)));
  return { functionName: name, variables, resourceVariables: RESOURCE_VARIABLES, dataGrants, objectGrants, withheldSettings };
}
