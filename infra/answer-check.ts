/**
 * Whether an answer is one its route's contract allows: a success envelope's `data` against the
 * route's schema, a fail's message against those the route declares (its own and the shared ones,
 * as the OpenAPI document lists them) with their status, and every envelope's keys and their
 * order. The test clients hold every answer of the tests to it, and `npm start` with
 * CHECK_ANSWERS every answer it serves. Never imported by an HTTP function.
 */
import type * as z from 'zod';
import { gradeableNotSpecified } from '#shared/gradeables/failures.ts';
import { matchRoute, routes } from '#functions/definitions.ts';
import { contracts } from '#functions/contracts.ts';
import type { FailCase, RouteContract } from '#shared/http/contract.ts';
import { pageTitle } from '#shared/http/platform-answers.ts';
import { ERROR_CODES } from '#shared/http/envelope.ts';
import { endpointNotFound, methodNotAllowed } from '#shared/http/failures.ts';
import { failsOf } from '#shared/http/openapi.ts';
import type { RouteDefinition, RouteName } from '#shared/http/routes.ts';

export interface AnsweredRequest {
  readonly method: string;
  /** The path, from `/api` (a query string is ignored). */
  readonly path: string;
}

export interface Answer {
  readonly httpStatus: number;
  /** The answer's Content-Type (absent: JSON). */
  readonly contentType?: string | null;
  readonly body: string;
  /** The Location header, where the caller read it (a platform-facing route's redirect). */
  readonly location?: string | null;
}

export interface AnswerMismatch {
  /** `GET /api/{semester}/{course}/users (course-users)`, or the method and path when no route matched. */
  readonly route: string;
  /** Each problem: where in the answer (`data.students[0].team_id`), what is wrong and the value found. */
  readonly problems: readonly string[];
}

/** The route that answers `method` and `path`: the one place the checks find it, by the route table's paths. */
export function routeOf(method: string, path: string): { readonly name: RouteName; readonly routeKey: string } | undefined {
  const match = matchRoute(method, path.split('?')[0] ?? '');
  return match.kind === 'route' ? { name: match.name, routeKey: match.routeKey } : undefined;
}

/** The problems of an answer to `request`, or undefined when it keeps the contract. */
export function checkAnswer(request: AnsweredRequest, answer: Answer): AnswerMismatch | undefined {
  const route = routeOf(request.method, request.path);
  const problems = answerProblems(route?.name, request, answer);
  if (problems.length === 0) return undefined;
  return { route: route ? `${route.routeKey} (${route.name})` : `${request.method.toUpperCase()} ${request.path}`, problems };
}

/** A mismatch in words, one problem a line. */
export const describeMismatch = (mismatch: AnswerMismatch): string =>
  [`The answer of ${mismatch.route} is not one its contract allows:`, ...mismatch.problems.map((problem) => `  ${problem}`)].join('\n');

function answerProblems(name: RouteName | undefined, request: AnsweredRequest, answer: Answer): string[] {
  // 304 Not Modified and a HEAD request's answer carry no body.
  if (answer.httpStatus === 304 || request.method.toUpperCase() === 'HEAD') return [];
  const isJson = /^application\/json\b/i.test(answer.contentType ?? 'application/json');
  const own = name === undefined ? undefined : contracts[name];
  if (name !== undefined && own?.platform) return platformProblems(name, own, answer);
  if (!isJson) {
    if (own?.raw && answer.httpStatus === 200) return [];
    return [`the answer is ${answer.contentType}, not an application/json envelope (HTTP ${answer.httpStatus})`];
  }
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    return [`the body is not JSON: ${answer.body.slice(0, 200)}`];
  }
  // A raw route's answer is as is; its failures are still envelopes.
  const failed = isObject(json) && (json.status === 'fail' || json.status === 'error');
  if (own?.raw && answer.httpStatus === 200 && !failed) return schemaProblems(own.data, json, '');
  if (!isObject(json)) return [`the body is not an envelope: ${shown(json)}`];
  const envelope = json;
  const keys = Object.keys(envelope).join(', ');
  switch (envelope.status) {
    case 'success':
      return [
        ...(keys === 'status, data' ? [] : [`the envelope's keys are ${keys}, not status, data`]),
        ...(answer.httpStatus === 200 || (name !== undefined && answer.httpStatus === (routes[name] as RouteDefinition).successStatus)
          ? []
          : [`a success answered with HTTP ${answer.httpStatus}`]),
        ...(own ? schemaProblems(own.data, envelope.data, 'data') : ['a success from no route']),
      ];
    case 'fail':
      return [
        ...(keys === 'status, message' || keys === 'status, data, message'
          ? []
          : [`the envelope's keys are ${keys}, not status, message (or status, data, message)`]),
        ...failProblems(name, envelope, answer.httpStatus),
      ];
    case 'error':
      return [
        ...(keys === 'status, message, code' ? [] : [`the envelope's keys are ${keys}, not status, message, code`]),
        ...(typeof envelope.message === 'string' ? [] : [`message: not a string: ${shown(envelope.message)}`]),
        ...(typeof envelope.code === 'string' && envelope.code in ERROR_CODES
          ? []
          : [`code: not one of the error codes: ${shown(envelope.code)}`]),
        ...(answer.httpStatus === 200 || answer.httpStatus === 500 ? [] : [`an error answered with HTTP ${answer.httpStatus}`]),
      ];
    default:
      return [`status: not success, fail or error: ${shown(envelope.status)}`];
  }
}

/**
 * A platform-facing route's answer: one of its redirects (with a Location, where the caller read
 * it), its HTML page, or an HTML page titled with a fail it declares, with that fail's status.
 */
function platformProblems(name: RouteName, own: RouteContract, answer: Answer): string[] {
  const { httpStatus } = answer;
  if (own.platform?.redirects.some((redirect) => redirect.status === httpStatus)) {
    return answer.location === null ? [`a redirect (HTTP ${httpStatus}) without a Location`] : [];
  }
  if (!/^text\/html\b/i.test(answer.contentType ?? ''))
    return [`the answer is ${answer.contentType}, not an HTML page (HTTP ${httpStatus})`];
  if (httpStatus === 200) return own.platform?.page ? [] : ['an HTML page with HTTP 200 from a route that answers none'];
  const title = pageTitle(answer.body);
  if (title === undefined) return [`an HTML page without a title (HTTP ${httpStatus})`];
  const declared = failsOf(routes[name as keyof typeof routes] as RouteDefinition, own).filter(
    (fail) => fail.message === title || templatePattern(fail.message).test(title),
  );
  if (declared.length === 0) return [`the page's title is not a fail the route declares: ${shown(title)}`];
  return declared.some((fail) => fail.status === httpStatus)
    ? []
    : [`HTTP ${httpStatus} for ${shown(title)}, declared with ${[...new Set(declared.map((fail) => fail.status))].join(' or ')}`];
}

/** A fail's message is one its route declares (or the router's), with the status declared for it. */
function failProblems(name: RouteName | undefined, envelope: Record<string, unknown>, httpStatus: number): string[] {
  const { message, data } = envelope;
  if (typeof message !== 'string') return [`message: not a string: ${shown(message)}`];
  const problems: string[] = [];
  if ('data' in envelope && !hasContent(data)) problems.push(`data: present but empty: ${shown(data)}`);
  const candidates: FailCase[] = [
    ...(name === undefined ? [] : failsOf(routes[name as keyof typeof routes] as RouteDefinition, contracts[name])),
    { status: 404, message: endpointNotFound().message },
    { status: 405, message: methodNotAllowed([]).message },
    // The router's answer to a path whose gradeable id is empty.
    ...(name === undefined ? [{ status: 400 as const, message: gradeableNotSpecified().message }] : []),
  ];
  const declared = candidates.filter((fail) => fail.message === message || templatePattern(fail.message).test(message));
  if (declared.length === 0) return [...problems, `message: not one the route declares: ${shown(message)}`];
  if (httpStatus !== 200 && !declared.some((fail) => fail.status === httpStatus)) {
    problems.push(
      `HTTP ${httpStatus} for ${shown(message)}, declared with ${[...new Set(declared.map((fail) => fail.status))].join(' or ')}`,
    );
  }
  const schema = declared.find((fail) => fail.data)?.data;
  if (schema && 'data' in envelope) problems.push(...schemaProblems(schema, data, 'data'));
  return problems;
}

const patterns = new Map<string, RegExp>();

/** A declared message (`{…}` filled in per request) as a pattern. */
function templatePattern(template: string): RegExp {
  let pattern = patterns.get(template);
  if (!pattern) {
    const parts = template.split(/\{[^}]*\}/).map((part) => part.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&'));
    // A part filled in may be empty (`User  is not in this course.` for an empty user id).
    pattern = new RegExp(`^${parts.join('.*')}$`, 's');
    patterns.set(template, pattern);
  }
  return pattern;
}

/** What `schema` finds wrong with `value`, each problem at its path from `at`. */
function schemaProblems(schema: z.ZodType, value: unknown, at: string): string[] {
  const result = schema.safeParse(value);
  return result.success ? [] : issueLines(result.error.issues, value, at);
}

function issueLines(issues: readonly z.core.$ZodIssue[], root: unknown, at: string): string[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      // The branch that came closest.
      const closest = [...issue.errors].sort((a, b) => a.length - b.length)[0] ?? [];
      const prefixed = closest.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }));
      return [`${pathText(at, issue.path)}: matches none of its alternatives; the closest says:`, ...issueLines(prefixed, root, at)];
    }
    const value = valueAt(root, issue.path);
    const found =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => `${key}: ${shown((value as Record<string, unknown>)[key])}`).join(', ')
        : shown(value);
    return [`${pathText(at, issue.path)}: ${issue.message} (found ${found})`];
  });
}

const pathText = (at: string, path: readonly PropertyKey[]) =>
  path.reduce<string>(
    (text, key) =>
      typeof key === 'number'
        ? `${text}[${key}]`
        : /^[A-Za-z_]\w*$/.test(String(key))
          ? `${text}${text ? '.' : ''}${String(key)}`
          : `${text}[${JSON.stringify(String(key))}]`,
    at,
  ) || '(the answer)';

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function hasContent(data: unknown): boolean {
  if (data === undefined || data === null) return false;
  if (Array.isArray(data)) return data.length > 0;
  if (typeof data === 'object') return Object.keys(data).length > 0;
  return data !== '';
}
