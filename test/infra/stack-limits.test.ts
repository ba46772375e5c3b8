import { statSync } from 'node:fs';
import { join } from 'node:path';
import { App, NestedStack, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Template } from 'aws-cdk-lib/assertions';
import { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiFunction } from '#infra/aws/api-function.ts';
import { FUNCTION_GROUP_COUNT, functionGroup, FunctionGroups } from '#infra/aws/function-groups.ts';
import { tables } from '#shared/data/tables.ts';
import { functionNames, synthesize, type Synthesized } from './synth.ts';

/**
 * CloudFormation's limits per stack (a nested stack is a stack of its own), with room to spare:
 * no stack may come closer than this to them.
 */
const SHARE = 0.8;
const LIMITS = { resources: 500, parameters: 200, outputs: 200, templateBytes: 1_000_000 };

interface StackSize {
  readonly path: string;
  readonly nested: boolean;
  readonly resources: number;
  readonly parameters: number;
  readonly outputs: number;
  readonly templateBytes: number;
  /** Lambda functions in the stack. */
  readonly functions: number;
}

/** Every stack of the app's assembly (the stack and its nested stacks), measured as CloudFormation counts. */
function sizes(app: App, root: Stack): StackSize[] {
  return [root, ...root.node.findAll().filter((construct): construct is NestedStack => NestedStack.isNestedStack(construct))].map(
    (stack) => {
      const template = Template.fromStack(stack).toJSON() as {
        Resources: Record<string, { Type: string }>;
        Parameters?: object;
        Outputs?: object;
      };
      return {
        path: stack.node.path,
        nested: NestedStack.isNestedStack(stack),
        resources: Object.keys(template.Resources).length,
        parameters: Object.keys(template.Parameters ?? {}).length,
        outputs: Object.keys(template.Outputs ?? {}).length,
        templateBytes: statSync(join(app.outdir, stack.templateFile)).size,
        functions: Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::Lambda::Function').length,
      };
    },
  );
}

function expectWithinLimits(stacks: readonly StackSize[]): void {
  for (const stack of stacks) {
    expect(stack.resources, `${stack.path} resources`).toBeLessThanOrEqual(LIMITS.resources * SHARE);
    expect(stack.parameters, `${stack.path} parameters`).toBeLessThanOrEqual(LIMITS.parameters * SHARE);
    expect(stack.outputs, `${stack.path} outputs`).toBeLessThanOrEqual(LIMITS.outputs * SHARE);
    expect(stack.templateBytes, `${stack.path} template bytes`).toBeLessThanOrEqual(LIMITS.templateBytes * SHARE);
  }
}

/** Resources per function in the nested stacks: each function with its role, logs, alarms, routes. */
const costPerFunction = (stacks: readonly StackSize[]) => {
  const nested = stacks.filter((stack) => stack.nested);
  return nested.reduce((total, stack) => total + stack.resources, 0) / nested.reduce((total, stack) => total + stack.functions, 0);
};

let real: { synth: Synthesized; stacks: StackSize[] };
beforeAll(() => {
  const synth = synthesize({}, { bundle: false });
  real = { synth, stacks: sizes(synth.app, synth.stack) };
}, 300_000);

describe('stack limits', () => {
  it('keeps the stack and each nested stack within 80% of CloudFormation’s limits', () => {
    expect(real.stacks.filter((stack) => stack.nested).length).toBeGreaterThan(1);
    expectWithinLimits(real.stacks);
  });

  it('puts each route function in the nested stack its name hashes to, whatever else the route table holds', () => {
    const groups = real.synth.stack.functionGroups.nestedStacks;
    for (const name of functionNames) {
      const fn = real.synth.stack.functions.get(name)!;
      const stack = Stack.of(fn);
      if (stack === real.synth.stack) continue;
      expect(stack, name).toBe(groups.get(functionGroup(name)));
    }
    // The group depends on the name alone: these must never change on a deployed stack.
    expect(['issue-token', 'not-found', 'generate-summaries'].map(functionGroup)).toEqual([5, 0, 4]);
  });

  it('has room for 150 route functions: a synthetic app of that many, each with the routes, grants and variables of a large one', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Synthetic');
    const tableList = Object.values(tables).map(
      (definition) => new Table(stack, definition.id, { partitionKey: { name: definition.partitionKey, type: AttributeType.STRING } }),
    );
    const api = new HttpApi(stack, 'Api', { createDefaultStage: false });
    const topic = new Topic(stack, 'AlarmTopic');
    const groups = new FunctionGroups(stack);
    for (let index = 0; index < 150; index++) {
      const name = `synthetic-route-${index}`;
      const handler = new ApiFunction(groups.scopeFor(name), `Synthetic${index}`, {
        handler: 'me',
        description: name,
        logRemovalPolicy: RemovalPolicy.DESTROY,
      });
      // Eight tables read and written, one index, as the largest route functions have.
      for (let offset = 0; offset < 8; offset++) {
        const table = tableList[(index + offset) % tableList.length]!;
        handler.function.addToRolePolicy(
          new PolicyStatement({ actions: ['dynamodb:BatchGetItem', 'dynamodb:PutItem'], resources: [table.tableArn] }),
        );
        handler.function.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: [`${table.tableArn}/index/x`] }));
        handler.function.addEnvironment(`TABLE_${offset}`, table.tableName);
      }
      // Two paths for every third function (an alias), more than the route table has; a GET path
      // has a HEAD route beside it, as in the real stack.
      groups.route(api, { method: 'GET', path: `/api/synthetic/${index}` }, handler);
      groups.route(api, { method: 'HEAD', path: `/api/synthetic/${index}` }, handler);
      if (index % 3 === 0) groups.route(api, { method: 'POST', path: `/api/synthetic/${index}/alias` }, handler);
    }
    const notFound = new ApiFunction(groups.scopeFor('not-found'), 'NotFound', {
      handler: 'not-found',
      description: 'not-found',
      logRemovalPolicy: RemovalPolicy.DESTROY,
    });
    groups.route(api, '$default', notFound);
    for (const construct of stack.node.findAll()) if (construct instanceof Alarm) construct.addAlarmAction(new SnsAction(topic));

    const stacks = sizes(app, stack);
    console.info(stacks.map((size) => JSON.stringify(size)).join('\n'));
    expect(stacks.filter((candidate) => candidate.nested)).toHaveLength(FUNCTION_GROUP_COUNT);
    expect(stacks.reduce((total, candidate) => total + candidate.functions, 0)).toBe(151);
    // The synthetic functions cost at least what the real ones do, so the margin is not flattered.
    expect(costPerFunction(stacks)).toBeGreaterThanOrEqual(costPerFunction(real.stacks));
    expectWithinLimits(stacks);
  }, 300_000);
});
