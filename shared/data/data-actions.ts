/** One thing a DynamoDB request does, as IAM sees it: an action on a table or one of its indexes. */
export interface DataRequest {
  /** The IAM action without its `dynamodb:` prefix. */
  readonly action: string;
  readonly table: string;
  readonly index?: string;
}

/** The table (and index) a request names, as the SDK's inputs call them. */
interface TableRequest {
  readonly TableName: string;
  readonly IndexName?: string;
}

/** What IAM looks at in an SDK command's input. */
interface Input extends TableRequest {
  readonly RequestItems?: Readonly<Record<string, unknown>>;
  /** TransactWriteItems: `{ Put: … }`, `{ Update: … }`, …; TransactGetItems: `{ Get: … }`. */
  readonly TransactItems?: readonly { readonly Get: TableRequest; readonly [kind: string]: TableRequest }[];
}

const TRANSACT_WRITE_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

/**
 * What IAM authorizes for one SDK command (`GetItemCommand`, …): batch requests name every table
 * they touch; a transaction is authorized item by item, by the action of each item.
 */
export function dataRequests(commandName: string, commandInput: object): DataRequest[] {
  const input = commandInput as Input;
  const action = commandName.replace(/Command$/, '');
  switch (action) {
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return Object.keys(input.RequestItems ?? {}).map((table) => ({ action, table }));
    case 'TransactWriteItems':
      return (input.TransactItems ?? []).flatMap((item) =>
        Object.entries(item).map(([kind, request]) => ({
          action: TRANSACT_WRITE_ACTIONS[kind] ?? kind,
          table: request.TableName,
        })),
      );
    case 'TransactGetItems':
      return (input.TransactItems ?? []).map((item) => ({ action: 'GetItem', table: item.Get?.TableName }));
    case 'Query':
    case 'Scan':
      return [{ action, table: input.TableName, ...(input.IndexName ? { index: input.IndexName } : {}) }];
    default:
      return [{ action, table: input.TableName }];
  }
}

/** `Query` on a table, `Query byUser` on its index. */
export const grantName = (request: DataRequest): string => (request.index ? `${request.action} ${request.index}` : request.action);
