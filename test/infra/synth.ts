import os from 'node:os';
import { App, NestedStack, Stack, type CfnElement } from 'aws-cdk-lib';
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
  /**
   * The stack with its nested stacks as one template (`flattened`): what the tests assert on, as
   * if every resource were in one stack.
   */
  readonly template: Template;
  /** Resources of the stack and of every nested stack, by logical id. */
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
    const template = Template.fromJSON(flattened(stack), { skipCyclicalDependenciesCheck: true });
    return { app, stack, template, resources: template.toJSON().Resources };
  } finally {
    try {
      os.setPriority(priority);
    } catch {
      // Only a privileged user may raise the priority again; the assertions need little CPU.
    }
  }
}

interface TemplateJson {
  Resources: Record<string, CfnResourceJson>;
  Outputs?: Record<string, { Value: unknown }>;
  Parameters?: Record<string, unknown>;
  [section: string]: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `value` with every single-key intrinsic object that `replace` answers for replaced (deeply). */
function substitute(value: unknown, replace: (node: Record<string, unknown>) => unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => substitute(item, replace));
  if (!isObject(value)) return value;
  const replaced = Object.keys(value).length === 1 ? replace(value) : undefined;
  if (replaced !== undefined) return substitute(replaced, replace);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, replace)]));
}

/**
 * The stack's template with the resources of its nested stacks (recursively) merged in, as
 * CloudFormation would wire them: a nested template's parameters replaced by the values the
 * parent passes, and the parent's `Fn::GetAtt [nested, Outputs.X]` by the nested output's value.
 * A reference across stacks then reads like a reference within one (`{ Ref: <table> }`), so the
 * tests' expectations do not depend on which stack holds a resource. Logical ids must not collide.
 */
export function flattened(stack: Stack): TemplateJson {
  const template = structuredClone(Template.fromStack(stack).toJSON()) as TemplateJson;
  const outputs = new Map<string, unknown>();
  const merged: Record<string, CfnResourceJson> = { ...template.Resources };
  for (const nested of stack.node.findAll().filter((construct): construct is NestedStack => NestedStack.isNestedStack(construct))) {
    if (nested.nestedStackParent !== stack) continue;
    const resourceId = stack.resolve(stack.getLogicalId(nested.nestedStackResource!)) as string;
    const passed = (template.Resources[resourceId]!.Properties.Parameters ?? {}) as Record<string, unknown>;
    const child = flattened(nested);
    const inner = substitute(child, (node) =>
      typeof node.Ref === 'string' && node.Ref in passed ? passed[node.Ref] : undefined,
    ) as TemplateJson;
    for (const [name, output] of Object.entries(inner.Outputs ?? {})) outputs.set(`${resourceId} Outputs.${name}`, output.Value);
    for (const [id, resource] of Object.entries(inner.Resources)) {
      if (id in merged) throw new Error(`The logical id ${id} is in more than one stack`);
      merged[id] = resource;
    }
  }
  const fromOutputs = (node: Record<string, unknown>) => {
    const getAtt = node['Fn::GetAtt'];
    return Array.isArray(getAtt) ? outputs.get(`${String(getAtt[0])} ${String(getAtt[1])}`) : undefined;
  };
  return substitute({ ...template, Resources: merged }, fromOutputs) as TemplateJson;
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
