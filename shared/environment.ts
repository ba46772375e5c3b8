import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The environment one function runs with. In Lambda that is the process environment the template
 * gives it. The local server runs every function in one process, so it runs each invocation in a
 * scope holding that function's own resource variables (computed by the same code as the stack)
 * and its data grants, without the settings the deployed function is not given: a variable, a
 * setting or an action the deployed function would lack is missing locally too.
 */
export interface FunctionScope {
  readonly functionName: string;
  /** The resource variables of the function (tables, secret, queue, its name and route). */
  readonly variables: Readonly<Record<string, string>>;
  /** Every resource variable any function may have: inside a scope these come from `variables` only. */
  readonly resourceVariables: ReadonlySet<string>;
  /** DynamoDB actions allowed per physical table name (`Query` or `Query <index>` for an index). */
  readonly dataGrants: ReadonlyMap<string, ReadonlySet<string>>;
  /** S3 actions allowed on the submissions bucket per key prefix (`''`: every key); none when absent. */
  readonly objectGrants?: readonly { readonly prefix: string; readonly actions: ReadonlySet<string> }[];
  /** Settings the deployed function is not given (its definition does not name them): unset inside the scope. */
  readonly withheldSettings?: ReadonlySet<string>;
}

const scopes = new AsyncLocalStorage<FunctionScope>();

/** Runs `work` as the function `scope` describes (local server only). */
export const runAsFunction = <T>(scope: FunctionScope, work: () => T): T => scopes.run(scope, work);

/** The scope of the local function now running, if any (never in Lambda). */
export const currentScope = (): FunctionScope | undefined => scopes.getStore();

/**
 * A variable of the running function: a resource variable from its scope, anything else from the
 * process. Settings are read through shared/config.ts, which declares and checks them; resource
 * variables (`RESOURCE_VARIABLES` in infra/function-access.ts) are read here directly.
 */
export function setting(name: string): string | undefined {
  const scope = scopes.getStore();
  if (scope?.resourceVariables.has(name)) return scope.variables[name];
  if (scope?.withheldSettings?.has(name)) return undefined;
  return process.env[name];
}

/** Variables naming the running function and its route, set on every function by its environment. */
export const FUNCTION_VARIABLE = 'API_FUNCTION';
export const ROUTE_VARIABLE = 'API_ROUTE';

/** "function course-users (GET /api/{semester}/{course}/users)", for error messages. */
export function describeRunningFunction(): string {
  const name = setting(FUNCTION_VARIABLE) ?? process.env.AWS_LAMBDA_FUNCTION_NAME;
  if (!name) return 'this process (no function environment)';
  const route = setting(ROUTE_VARIABLE);
  return `function ${name} (${route ? `route ${route}` : 'no route'})`;
}
