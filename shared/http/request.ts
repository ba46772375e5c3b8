/**
 * A request's query, headers and body read with its route's schemas (its definition's `input`):
 * the handler gets the typed result, or the request is refused with the first field not of its
 * kind (`The field …`).
 */
import type * as z from 'zod/mini';
import { invalidInput } from '#shared/errors.ts';
import { fieldMessage, isMissing, missingFailure, type Required } from './fields.ts';
import { pathParameters } from './parameters.ts';
import type { RouteDefinition, RouteInput } from './routes.ts';
import type { MalformedParameter } from './types.ts';

type Shape = Readonly<Record<string, z.ZodMiniType>>;

type InputOf<Definition extends RouteDefinition> = Definition['input'] extends () => infer I ? I : Readonly<Record<never, never>>;
/** The fields of a shape declared with `required`. */
type RequiredKeys<S extends Shape> = { [F in keyof S]: S[F] extends Required ? F : never }[keyof S];
/** A required field is present once parsed: its kind's "none" (undefined) is refused as missing. */
type Fields<S extends Shape> = { readonly [F in RequiredKeys<S>]: Exclude<z.output<S[F]>, undefined> } & {
  readonly [F in Exclude<keyof S, RequiredKeys<S>>]?: z.output<S[F]>;
};
type Part<Definition extends RouteDefinition, Key extends keyof RouteInput> =
  InputOf<Definition> extends { readonly [K in Key]: infer S extends Shape } ? Fields<S> : Readonly<Record<never, never>>;

/** The `{name}`s of a path, each a string. */
export type ParameterNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParameterNames<Rest>
  : never;
export type Params<Definition extends RouteDefinition> = { readonly [P in ParameterNames<Definition['path']>]: string };

/** What a handler receives of its request, parsed: the fields declared `required` present, every other one optional. */
export interface Input<Definition extends RouteDefinition> {
  readonly query: Part<Definition, 'query'>;
  readonly headers: Part<Definition, 'headers'>;
  readonly body: InputOf<Definition> extends { readonly document: true } ? Readonly<Record<string, unknown>> : Part<Definition, 'body'>;
}

/** Each route's input, built once (a function builds only its own, on its first request). */
const built = new WeakMap<RouteDefinition, RouteInput>();

/** The schemas `definition` declares, built on first use. */
export function inputOf(definition: RouteDefinition): RouteInput {
  let input = built.get(definition);
  if (!input) built.set(definition, (input = definition.input?.() ?? {}));
  return input;
}

/**
 * One part of a request (query, headers, body) parsed with its shape; null counts as absent. Each
 * field is parsed by its own schema, in the shape's order, so the first field not of its kind is
 * the one refused, and a route that reads no fields carries no object schema. Then the first
 * required field missing is refused with its route's message (kinds are checked first).
 */
function parsePart(shape: Shape | undefined, values: Readonly<Record<string, unknown>>, lowerCaseKeys = false): unknown {
  const parsed: Record<string, unknown> = {};
  if (!shape) return parsed;
  for (const [key, schema] of Object.entries(shape)) {
    const value = values[lowerCaseKeys ? key.toLowerCase() : key];
    if (value === undefined || value === null) continue;
    const result = schema.safeParse(value, { error: (issue) => fieldMessage({ ...issue, path: [key] }) });
    if (!result.success) throw invalidInput(result.error.issues.at(0)?.message ?? 'The request is not valid.');
    parsed[key] = result.data;
  }
  for (const [key, schema] of Object.entries(shape)) {
    const missing = missingFailure(schema);
    const value = parsed[key];
    if (missing && isMissing(missing, value)) throw missing.refusal();
  }
  return parsed;
}

/** Parses a request's query, headers and body fields; the first value not of its kind is refused. */
export function parseInput<Definition extends RouteDefinition>(
  definition: Definition,
  request: {
    query?: Readonly<Record<string, unknown>>;
    headers?: Readonly<Record<string, unknown>>;
    body?: Readonly<Record<string, unknown>>;
  },
): Input<Definition> {
  const declared = inputOf(definition);
  return {
    query: parsePart(declared.query, request.query ?? {}),
    headers: parsePart(declared.headers, request.headers ?? {}, true),
    body: declared.document ? (request.body ?? {}) : parsePart(declared.body, request.body ?? {}),
  } as Input<Definition>;
}

/** The `{name}`s of a path, in order. */
export const parameterNamesOf = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => name);

/** The path parameters the course check answers itself (`Failed to load course…`) when malformed. */
export type CourseParameter = 'semester' | 'course';

/**
 * A path read with its route's parameters (parameters.ts): the values of their kind, in the path's
 * order, up to the first that is not (`malformed`).
 */
export interface PathView {
  readonly params: Readonly<Record<string, string>>;
  readonly malformed?: MalformedParameter;
}

/**
 * Reads each `{name}` of the route's path with that parameter's one schema (`pathParameters`), in
 * the path's order. A value missing or not of its kind is reported, never refused here: the course
 * check refuses a malformed course, and the route says what any other malformed one answers.
 */
export function parsePath(definition: RouteDefinition, values: Readonly<Record<string, string | undefined>>): PathView {
  const params: Record<string, string> = {};
  for (const name of parameterNamesOf(definition.path)) {
    const value = values[name] ?? '';
    const schema = (pathParameters as Readonly<Record<string, z.ZodMiniType>>)[name];
    if (!schema) throw new Error(`The path parameter {${name}} of ${definition.name} has no schema in parameters.ts`);
    if (!schema.safeParse(value).success) return { params, malformed: { name, value } };
    params[name] = value;
  }
  return { params };
}
