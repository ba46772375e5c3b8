import { describe, expect, it } from 'vitest';
import { functionAccess, functionEnvironment, functionNames, middlewareData, type ResourceBindings } from '#infra/function-access.ts';
import { dataRequests, grantName } from '#shared/data/data-actions.ts';
import { runAsFunction, setting } from '#shared/environment.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { localFunctionScope } from '#infra/local/functions.ts';

const bindings: ResourceBindings = {
  tableName: (key) => `deployed-${key}`,
  signingSecret: { variable: 'SIGNING_SECRET_ARN', value: 'arn:secret' },
  ltiKey: { variable: 'LTI_KEY_ARN', value: 'arn:lti-key' },
  recordKeys: { variable: 'RECORD_KEYS_ARN', value: 'arn:record-keys' },
  gradingQueueUrl: 'https://sqs/queue',
  webhookQueueUrl: 'https://sqs/webhooks',
  summariesQueueUrl: 'https://sqs/summaries',
  ltiScoreQueueUrl: 'https://sqs/lti-scores',
  submissionsBucket: 'submissions-bucket',
  gradingSandbox: { GRADING_PROJECT: 'grading-project', GRADING_BUCKET: 'jobs' },
};

describe('what each function may do', () => {
  it('adds the token check’s reads to every route that reads a token, and the course’s on course routes', () => {
    expect(middlewareData('public')).toEqual({});
    expect(middlewareData('user')).toEqual({ sessions: ['BatchGetItem'], users: ['BatchGetItem'] });
    expect(middlewareData('course:member')).toMatchObject({ courses: ['BatchGetItem'], enrollments: ['BatchGetItem'] });
    expect(middlewareData('course:member')).not.toHaveProperty('accessGroups');
    expect(middlewareData('course:instructor-or-group-staff')).toMatchObject({ accessGroups: ['Query'] });
  });

  it('merges the middleware’s and the handler’s actions per table', () => {
    expect(functionAccess('list-courses').data.get('enrollments')).toEqual(['Query byUser']);
    expect(functionAccess('course-users').data.get('enrollments')).toEqual(['BatchGetItem', 'Query']);
    expect(functionAccess('openapi').data.size).toBe(0);
    expect(functionAccess('submit-vcs')).toMatchObject({ signingSecret: true, sendsToGradingQueue: true, runsGradingSandbox: false });
    expect(functionAccess('grading-worker')).toMatchObject({ signingSecret: false, runsGradingSandbox: true });
    expect(functionAccess('issue-token').signingSecret).toBe(true);
    expect(functionAccess('not-found').data.size).toBe(0);
  });

  it('names in a function’s environment exactly its tables, its route and what else it was granted', () => {
    expect(functionEnvironment('me', bindings)).toEqual({
      API_FUNCTION: 'me',
      API_ROUTE: 'GET /api/me',
      SESSIONS_TABLE: 'deployed-sessions',
      USERS_TABLE: 'deployed-users',
      SIGNING_SECRET_ARN: 'arn:secret',
    });
    expect(functionEnvironment('not-found', bindings)).toEqual({ API_FUNCTION: 'not-found' });
    expect(functionEnvironment('grading-worker', bindings)).toMatchObject({ GRADING_PROJECT: 'grading-project', GRADING_BUCKET: 'jobs' });
    expect(functionEnvironment('submit-vcs', bindings)).not.toHaveProperty('GRADING_PROJECT');
    for (const name of functionNames) expect(functionEnvironment(name, bindings).API_FUNCTION).toBe(name);
  });
});

describe('DynamoDB requests as IAM authorizes them', () => {
  it('names every table of a batch and each item of a transaction by its own action', () => {
    expect(dataRequests('BatchGetItemCommand', { RequestItems: { A: {}, B: {} } })).toEqual([
      { action: 'BatchGetItem', table: 'A' },
      { action: 'BatchGetItem', table: 'B' },
    ]);
    expect(
      dataRequests('TransactWriteItemsCommand', {
        TransactItems: [
          { Put: { TableName: 'A' } },
          { ConditionCheck: { TableName: 'B' } },
          { Delete: { TableName: 'C' } },
          { Update: { TableName: 'A' } },
        ],
      }).map(grantName),
    ).toEqual(['PutItem', 'ConditionCheckItem', 'DeleteItem', 'UpdateItem']);
    expect(dataRequests('QueryCommand', { TableName: 'E', IndexName: 'byUser' }).map(grantName)).toEqual(['Query byUser']);
    expect(dataRequests('GetItemCommand', { TableName: 'U' })).toEqual([{ action: 'GetItem', table: 'U' }]);
  });
});

describe('a local function’s environment', () => {
  it('has no table it was not granted, and says which function and route lack it', () => {
    const scope = localFunctionScope('me');
    expect(runAsFunction(scope, () => tableName(tables.users))).toBe(process.env.USERS_TABLE);
    expect(() => runAsFunction(scope, () => tableName(tables.courses))).toThrow(
      'The Courses table is not in the environment of function me (route GET /api/me): COURSES_TABLE is not set.',
    );
    // The process's own variables (an operator's) do not leak into a function.
    expect(process.env.COURSES_TABLE).toBeTruthy();
    expect(runAsFunction(scope, () => setting('COURSES_TABLE'))).toBeUndefined();
    expect(runAsFunction(localFunctionScope('openapi'), () => setting('SIGNING_SECRET_FILE'))).toBeUndefined();
  });
});

describe('a local function’s grants', () => {
  it('refuse an action its route-table entry does not declare, as IAM would', async () => {
    const { getItems } = await import('#shared/data/items.ts');
    const { userRef } = await import('#shared/data/users.ts');
    const { courseRef } = await import('#shared/data/courses.ts');
    const scope = localFunctionScope('me');
    await expect(runAsFunction(scope, () => getItems({ user: userRef('nobody-here') }))).resolves.toEqual({ user: undefined });
    const withoutUsers = { ...scope, dataGrants: new Map([...scope.dataGrants].filter(([table]) => table !== process.env.USERS_TABLE)) };
    await expect(runAsFunction(withoutUsers, () => getItems({ user: userRef('nobody-here') }))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: `function me (route GET /api/me) is not authorized to perform: dynamodb:BatchGetItem on resource: table/${process.env.USERS_TABLE}`,
    });
    // A table granted with the variable but not for this action: me never reads courses.
    const withCourses = { ...scope, variables: { ...scope.variables, COURSES_TABLE: process.env.COURSES_TABLE! } };
    await expect(runAsFunction(withCourses, () => getItems({ course: courseRef('f26', 'x') }))).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
  });
});

describe('a local function’s settings', () => {
  it('are those its definition names of the settings given only to the functions that read them, as in AWS', () => {
    const before = process.env.PASSWORD_LOGIN;
    process.env.PASSWORD_LOGIN = 'superusers';
    try {
      expect(runAsFunction(localFunctionScope('change-password'), () => setting('PASSWORD_LOGIN'))).toBe('superusers');
      expect(runAsFunction(localFunctionScope('invalidate-token'), () => setting('PASSWORD_LOGIN'))).toBe('superusers');
      // me never reads it, and its deployed function is not given it.
      expect(runAsFunction(localFunctionScope('me'), () => setting('PASSWORD_LOGIN'))).toBeUndefined();
      // Other settings reach every function, as their defaults do in AWS.
      expect(runAsFunction(localFunctionScope('me'), () => setting('PATH'))).toBe(process.env.PATH);
    } finally {
      if (before === undefined) delete process.env.PASSWORD_LOGIN;
      else process.env.PASSWORD_LOGIN = before;
    }
  });
});
