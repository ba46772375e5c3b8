/** DynamoDB's name of a command, whether sent through the document client (`BatchGetCommand`) or the low-level one (`BatchGetItemCommand`). */
export function operationName(commandName: string | undefined): string {
  const name = (commandName ?? 'unknown').replace(/Command$/, '');
  const documentNames: Record<string, string> = {
    BatchGet: 'BatchGetItem',
    BatchWrite: 'BatchWriteItem',
    Get: 'GetItem',
    Put: 'PutItem',
    Update: 'UpdateItem',
    Delete: 'DeleteItem',
    TransactGet: 'TransactGetItems',
    TransactWrite: 'TransactWriteItems',
  };
  return documentNames[name] ?? name;
}
