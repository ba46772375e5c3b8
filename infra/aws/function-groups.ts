import { createHash } from 'node:crypto';
import { NestedStack, Stack } from 'aws-cdk-lib';
import { HttpMethod, HttpRoute, HttpRouteKey, type IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Construct } from 'constructs';
import type { ApiFunction } from './api-function.ts';

/**
 * How many nested stacks hold the route functions. Never change it on a deployed stack: almost
 * every function would change group, and a Lambda function that moves between stacks is replaced.
 */
export const FUNCTION_GROUP_COUNT = 8;

/**
 * The group of a function: a hash of its name alone, so adding, removing or reordering other
 * routes never moves it (a function that moves between stacks is deleted and created anew).
 */
export function functionGroup(name: string): number {
  return createHash('sha256').update(name).digest().readUInt32BE(0) % FUNCTION_GROUP_COUNT;
}

/** A route of the HTTP API: `$default`, or a method and path. */
export type GroupRouteKey = { readonly method: keyof typeof HttpMethod; readonly path: string } | '$default';

/**
 * The route functions in `FUNCTION_GROUP_COUNT` nested stacks, which keep the parent stack (and
 * each of them) far below CloudFormation's 500 resources however many routes there are. A group
 * holds its functions with everything that exists for them alone: log group, role and policy,
 * alarms, and each route with its integration and invoke permission. What the functions share
 * (tables, secret, queues, the HTTP API, the alarm topic) stays in the parent; CDK passes it in
 * as parameters.
 */
export class FunctionGroups {
  private readonly scope: Construct;
  private readonly stacks = new Map<number, NestedStack>();
  private readonly madeRoutes: HttpRoute[] = [];

  constructor(scope: Construct) {
    this.scope = scope;
  }

  /** Where the named function and what serves it alone are created. */
  scopeFor(name: string): Construct {
    const group = functionGroup(name);
    let stack = this.stacks.get(group);
    if (!stack) {
      stack = new NestedStack(this.scope, `Functions${group}`, {
        description: `Route functions of group ${group} (of ${FUNCTION_GROUP_COUNT}, by a hash of each function's name)`,
      });
      this.stacks.set(group, stack);
    }
    return stack;
  }

  /** The nested stacks made so far, by group. */
  get nestedStacks(): ReadonlyMap<number, NestedStack> {
    return this.stacks;
  }

  /**
   * Routes `key` of `api` to the handler, in the handler's own stack (with the integration and the
   * invoke permission that exist for that route alone).
   */
  route(api: IHttpApi, key: GroupRouteKey, handler: ApiFunction): HttpRoute {
    const scope = Stack.of(handler);
    const route =
      key === '$default'
        ? new HttpRoute(scope, 'DefaultRoute', { httpApi: api, routeKey: HttpRouteKey.DEFAULT, integration: handler.integration })
        : new HttpRoute(scope, `${key.method}${key.path}`, {
            httpApi: api,
            routeKey: HttpRouteKey.with(key.path, HttpMethod[key.method]),
            integration: handler.integration,
          });
    this.madeRoutes.push(route);
    return route;
  }

  /** Every route made so far, in every group. */
  get routes(): readonly HttpRoute[] {
    return this.madeRoutes;
  }
}
