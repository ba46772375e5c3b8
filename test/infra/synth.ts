import os from 'node:os';
import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { deploymentSettings } from '#infra/aws/settings.ts';
import { CourseSubmissionStack } from '#infra/aws/stack.ts';
import { tables, type TableDefinition } from '#shared/data/tables.ts';
import { routes } from '#functions/definitions.ts';
import type { RouteDefinition } from '#shared/http/routes.ts';
import type { FunctionName } from '#infra/function-access.ts';

export interface Synthesized {
  readonly app: App;
  readonly stack: CourseSubmissionStack;
  readonly template: Template;
  /** Resources of the template by logical id. */
  readonly resources: Record<string, CfnResourceJson>;
}

export interface CfnResourceJson {
  readonly Type: string;
  /** The resource type's properties, as the template has them (intrinsics unresolved). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any resource type's properties, read freely by the tests, which check them with expect
  readonly Properties: Record<string, any>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

/**
 * Synthesizes the stack as `cdk synth` would, with the given context. `bundle: false` skips
 * esbuild (CDK's own `aws:cdk:bundling-stacks` switch) for tests about settings only.
 */
export function synthesize(context: Record<string, unknown>, options: { bundle: boolean }): Synthesized {
  // At the lowest CPU priority (esbuild inherits it), so the timing-sensitive HTTP tests running
  // beside it keep the CPU they need.
  const priority = os.getPriority();
  os.setPriority(19);
  try {
    const app = new App({ context: { ...context, ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }) } });
    const stack = new CourseSubmissionStack(app, 'Test', { settings: deploymentSettings(app.node) });
    const template = Template.fromStack(stack);
    return { app, stack, template, resources: template.toJSON().Resources };
  } finally {
    try {
      os.setPriority(priority);
    } catch {
      // Only a privileged user may raise the priority again; the assertions need little CPU.
    }
  }
}

export const logicalId = (construct: IConstruct): string => {
  const stack = Stack.of(construct);
  return stack.resolve(stack.getLogicalId(construct.node.defaultChild as CfnElement)) as string;
};

export const routeEntries = Object.entries(routes) as [string, RouteDefinition][];
export const tableEntries = Object.entries(tables) as [keyof typeof tables, TableDefinition][];
/** The functions that serve no route: the grading queue's consumer. */
export const gradingFunctionNames: readonly FunctionName[] = ['grading-worker'];
export { functionNames } from '#infra/function-access.ts';
