/**
 * The OpenAPI 3.1 document of the API, built from the route definitions it is given (paths,
 * aliases, methods, access, and their inputs: parameters, headers and bodies, rendered from their
 * zod schemas) and their contracts (`functions/<name>/contract.ts`: data, fail messages, zod
 * schemas too, rendered with the shared pieces of answers.ts as `components.schemas`). Imports
 * nothing but those and the failure factories, so the function serving it stays small.
 */
import * as z from 'zod/mini';
import type { $ZodType, JSONSchema } from 'zod/v4/core';
import { integerOverride } from '#shared/gradeables/schema.ts';
import { maxBodyBytes } from '#shared/config.ts';
import { courseNotFound } from '#shared/courses/failures.ts';
import packageJson from '../../package.json' with { type: 'json' };
import { components } from './answers.ts';
import { fail, tags, type FailCase, type HttpStatus, type PlatformAnswers, type RouteContract } from './contract.ts';
import { ERROR_CODES } from './envelope.ts';
import {
  BODY_FAILS,
  bodyTooLarge,
  endpointNotFound,
  formOnly,
  methodNotAllowed,
  serviceFailedPage,
  serviceUnavailablePage,
  unauthenticated,
  unsupportedMediaType,
} from './failures.ts';
import { failsOfField, formSchemas, missingFailure, type JsonSchema } from './fields.ts';
import { pathParameters } from './parameters.ts';
import { inputOf } from './request.ts';
import { accessDenied } from '#shared/errors.ts';
import { INQUIRY_ID } from '#shared/ids.ts';
import { whoMayCall, type Access, type RouteDefinition, type RouteInput, type RouteName } from './routes.ts';
import type { WebhookEventType } from '#shared/webhooks/webhook.ts';

type Json = Record<string, unknown>;

/** The statuses `Prefer: http-status` can bring out, with what they mean here. */
export const httpStatuses: Readonly<Record<HttpStatus, string>> = {
  400: 'Bad request: a missing, malformed or invalid input.',
  401: 'Unauthenticated: no valid token, or wrong credentials.',
  403: 'Forbidden: the caller may not do this.',
  404: 'Not found: the endpoint, course, gradeable or user does not exist.',
  405: 'Method not allowed (with `Allow`).',
  409: 'Conflict: it exists already.',
  412: 'Precondition failed: the resource changed since the `ETag` that `If-Match` names.',
  413: 'The body is too large.',
  415: 'Unsupported Content-Type.',
  422: 'Well-formed but refused (validation problems, a reused Idempotency-Key).',
  429: 'Too many failed logins, or too many submissions in a minute (with `Retry-After`).',
  500: 'The service failed (an `error` envelope).',
  503: 'The service could not finish the request for a moment (a platform-facing route only; with `Retry-After`).',
};

/** Every route's contract, by route name (functions/contracts.ts). */
export type Contracts = Readonly<Record<RouteName, RouteContract>>;

/** The route's own fails (`own`, its contract) and those of the shared stack (token, course and role checks, body parsing). */
export function failsOf(route: RouteDefinition, own: RouteContract): FailCase[] {
  if (own.platform) return platformFails(route, own);
  if (own.raw) return [...own.fails];
  const fails: FailCase[] = [];
  if (route.access !== 'public') fails.push({ status: 401, message: unauthenticated().message, headers: ['WWW-Authenticate'] });
  if (route.access.startsWith('course:')) fails.push(fail(courseNotFound));
  // Every token route refuses a launch session beyond what its launch opened (shared/auth/launch-scope.ts).
  if (route.access !== 'public') fails.push(fail(accessDenied));
  if (route.method !== 'GET') {
    fails.push(
      { status: 413, message: bodyTooLarge(maxBodyBytes()).message },
      { status: 415, message: unsupportedMediaType().message },
      ...BODY_FAILS.map((message): FailCase => ({ status: 400, message })),
    );
  }
  const declared: RouteInput = inputOf(route);
  for (const [field, schema] of Object.entries(declared.body ?? {})) {
    fails.push(...failsOfField(field, schema).map((message): FailCase => ({ status: 400, message })));
  }
  const seen = new Set<string>();
  return [...fails, ...own.fails].filter((fail) => {
    const key = `${fail.status} ${fail.message}`;
    return !seen.has(key) && seen.add(key);
  });
}

/** The OpenAPI 3.1 document; `serverUrl` is where the API is reached (without `/api`). */
export function openApiDocument(
  routes: Readonly<Record<string, RouteDefinition>>,
  contracts: Contracts,
  options: { serverUrl?: string } = {},
): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const answers = renderedAnswers(contracts);
  for (const route of Object.values(routes)) {
    const own = contracts[route.name as RouteName];
    [route.path, ...(route.aliases ?? [])].forEach((path, index) => {
      (paths[path] ??= {})[route.method.toLowerCase()] = operation(route, own, answers, path, index);
    });
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Course Submission API',
      version: packageJson.version,
      summary: 'Course submission and grading: tokens, courses, gradeables, submissions, grade summaries.',
      description: infoDescription(),
    },
    servers: [{ url: options.serverUrl ?? 'http://localhost:3000', description: 'The API (paths start with /api)' }],
    tags: Object.entries(tags).map(([tag, description]) => ({ name: tag, description })),
    paths,
    webhooks: webhookOperations(),
    components: { schemas: { ...answers.components, ...envelopeSchemas() }, ...sharedComponents() },
  };
}

/** The `fail` and `error` envelopes every route may answer with. */
function envelopeSchemas(): Record<string, Json> {
  return {
    FailEnvelope: {
      type: 'object',
      description: 'Bad input, or a precondition is not met. Keys in this order: status, data (only when it has content), message.',
      required: ['status', 'message'],
      properties: { status: { const: 'fail' }, data: {}, message: { type: 'string' } },
    },
    ErrorEnvelope: {
      type: 'object',
      description:
        'The service failed. Keys in this order: status, message, code. The message says in plain words what `code` says, and names a request id, never internals.',
      required: ['status', 'message', 'code'],
      properties: {
        status: { const: 'error' },
        message: { type: 'string' },
        code: {
          type: 'string',
          enum: Object.keys(ERROR_CODES),
          description: [
            'Whether anything may have been written, and so what to do:',
            '',
            ...Object.entries(ERROR_CODES).map(([code, meaning]) => `- \`${code}\`: ${meaning}`),
          ].join('\n'),
        },
      },
    },
  };
}

/** The parameters, headers, responses and security schemes the operations refer to. */
function sharedComponents(): Json {
  return {
    parameters: {
      IfNoneMatch: {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        description:
          'The `ETag` of the answer you have: when nothing changed, the answer is `304 Not Modified` with no body (whether or not `Prefer: http-status` is sent).',
        schema: { type: 'string' },
      },
      Prefer: {
        name: 'Prefer',
        in: 'header',
        required: false,
        description:
          'Send `http-status` to get the HTTP status that fits the envelope (400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 500) instead of 200; the answer then carries `Preference-Applied: http-status`.',
        schema: { type: 'string', examples: ['http-status'] },
      },
    },
    headers: {
      'Preference-Applied': {
        description:
          '`http-status` when the request sent `Prefer: http-status`; on a submission, `return=representation` when it sent that too (both: `http-status, return=representation`).',
        schema: { type: 'string', examples: ['http-status', 'return=representation', 'http-status, return=representation'] },
      },
      'Retry-After': {
        description: 'Seconds until logins for this user id are accepted again.',
        schema: { type: 'integer', minimum: 1 },
      },
      'WWW-Authenticate': { description: '`Bearer`.', schema: { type: 'string' } },
      Link: {
        description:
          'On a page of a list that has more: `<…>; rel="next"` (RFC 8288), the URL of the next page (this request\'s path and query with its `cursor`). Absent on the last page.',
        schema: { type: 'string', examples: ['</api/f26/sample/users?page_size=100&cursor=WyIxIiwic3R1ZGVudCJd>; rel="next"'] },
      },
      ETag: {
        description: 'A strong validator of this answer (a hash of its body): send it back as `If-None-Match` to poll cheaply.',
        schema: { type: 'string' },
      },
    },
    responses: {
      NotModified: {
        description:
          'Not Modified: the answer is the one whose `ETag` was sent in `If-None-Match`. No body. Only requests with `If-None-Match` get it.',
        headers: { ETag: { $ref: '#/components/headers/ETag' } },
      },
      Error: {
        description: httpStatuses[500],
        headers: { 'Preference-Applied': { $ref: '#/components/headers/Preference-Applied' } },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
      },
    },
    securitySchemes: {
      token: {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description: 'The bare token from `POST /api/token`: `Authorization: <token>` (what the reference clients send).',
      },
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The same token as `Authorization: Bearer <token>`.' },
    },
  };
}

function infoDescription(): string {
  return [
    'Every answer is JSON in a JSend-style envelope, keys in this order: `status`, `data`, `message`, `code`.',
    '`success` carries `data` (null when there is nothing to return); `fail` (bad input, or a precondition is not met) carries `message` and, when it has content, `data`; `error` (the service failed) carries `message`, naming a request id, and `code`: `RETRYABLE` (nothing was written: retry with back-off), `UNKNOWN_OUTCOME` (a write may have been applied: retry with the same `Idempotency-Key`, or read the state first) or `INTERNAL` (a defect, nothing written: report the request id).',
    '',
    'The HTTP status is **200 for every envelope**, as the reference clients expect. Send `Prefer: http-status` to get the status that fits instead; the answer then carries `Preference-Applied: http-status`. Statuses used:',
    '',
    ...Object.entries(httpStatuses).map(([status, meaning]) => `- ${status}: ${meaning}`),
    '',
    `Any other path answers \`${endpointNotFound().message}\` (404); a known path with another method \`${methodNotAllowed([]).message}\` (405, with \`Allow\`).`,
    '',
    'Bodies may be `application/json`, `application/x-www-form-urlencoded` or `multipart/form-data`; form fields are strings, so booleans are written `true`/`1` or `false`/`0`.',
    `Bodies are at most ${bodyTooLarge(maxBodyBytes()).message.split(' ').at(-1)} (\`MAX_BODY_BYTES\`).`,
    '',
    'Authenticated routes take the token as `Authorization: <token>` or `Authorization: Bearer <token>`.',
    '',
    'Polling: `values` and `attempts` answer with an `ETag`; send it back as `If-None-Match` and an unchanged answer comes as `304 Not Modified`, without a body.',
    '',
    'Webhooks: instructors register HTTPS URLs per course for the events under **Webhooks**; each request is signed by the Standard Webhooks scheme (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with the secret shown at registration, and retried with back-off until the receiver answers 2xx.',
  ].join('\n');
}

function operation(route: RouteDefinition, own: RouteContract, answers: RenderedAnswers, path: string, aliasIndex: number): Json {
  const name = route.name as RouteName;
  const declared: RouteInput = inputOf(route);
  const parameters: Json[] = [...path.matchAll(/\{(\w+)\}/g)].map(([, parameter = '']) => {
    const schema = (pathParameters as Record<string, $ZodType>)[parameter];
    if (!schema) throw new Error(`The path parameter {${parameter}} of ${route.method} ${path} has no definition in parameters.ts`);
    return { name: parameter, in: 'path', required: true, ...parameterOf(schema) };
  });
  for (const [parameter, schema] of Object.entries(declared.query ?? {}))
    parameters.push({ name: parameter, in: 'query', required: isRequired(schema), ...parameterOf(schema) });
  for (const [header, schema] of Object.entries(declared.headers ?? {}))
    parameters.push({ name: header, in: 'header', required: isRequired(schema), ...parameterOf(schema) });
  if (route.etag) parameters.push({ $ref: '#/components/parameters/IfNoneMatch' });
  // A route that reads Prefer itself declares it, with what it prefers besides http-status.
  if (!own.raw && !own.platform && !Object.keys(declared.headers ?? {}).includes('Prefer'))
    parameters.push({ $ref: '#/components/parameters/Prefer' });

  const alias = aliasIndex > 0 ? ` Also served at ${route.path}.` : '';
  const result: Json = {
    operationId: aliasIndex === 0 ? name : `${name}-alias-${aliasIndex}`,
    summary: route.summary,
    description: `**Who may call it:** ${sentence(whoMayCall[route.access])}${alias}`,
    tags: [own.tag],
    'x-access': route.access,
    security: security(route.access),
    ...(parameters.length > 0 ? { parameters } : {}),
  };
  const body = requestBody(declared, own, answers);
  if (body) result.requestBody = { ...body, required: name !== 'invalidate-token' };
  result.responses = own.platform
    ? platformResponses(route, { ...own, platform: own.platform })
    : own.raw
      ? rawResponses(route, own, answers)
      : responses(route, own, answers, route.etag === true);
  return result;
}

function security(access: Access): Json[] {
  const token = [{ token: [] }, { bearer: [] }];
  if (access === 'public') return [];
  if (access === 'token-optional') return [{}, ...token];
  return token;
}

const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

/** A zod schema as JSON Schema; `form`: as written in a url-encoded or multipart form, where every value is a string. */
function jsonSchemaOf(schema: $ZodType, encoding: 'json' | 'form' = 'json'): Json {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override: (context) => {
      const form = encoding === 'form' ? formSchemas.get(context.zodSchema) : undefined;
      if (!form) return;
      for (const key of Object.keys(context.jsonSchema)) Reflect.deleteProperty(context.jsonSchema, key);
      Object.assign(context.jsonSchema, form);
    },
  }) as Json;
  delete json.$schema;
  return json;
}

/** Declared `required` (shared/http/fields.ts): a request without it is refused. */
const isRequired = (schema: $ZodType): boolean => missingFailure(schema) !== undefined;

/** A parameter's description and schema, from its zod schema. */
function parameterOf(schema: $ZodType): Json {
  const { description, ...rest } = jsonSchemaOf(schema);
  return { ...(description === undefined ? {} : { description }), schema: rest };
}

/** JSON fields keep their JSON types; form fields are strings (booleans as `true`/`1`/`false`/`0`). */
function requestBody(declared: RouteInput, own: RouteContract, answers: RenderedAnswers): Json | undefined {
  if (own.document) {
    return {
      description: own.document.description,
      content: { 'application/json': { schema: answerSchema(answers, own.document.schema) } },
    };
  }
  if (!declared.body) return undefined;
  const object = z.object(declared.body);
  const declaredRequired = Object.entries(declared.body).flatMap(([field, schema]) => (isRequired(schema) ? [field] : []));
  // Besides the fields not declared optional, those declared required (which the middleware refuses missing).
  const withRequired = (schema: Json): Json => {
    const required = [...new Set([...((schema.required as string[] | undefined) ?? []), ...declaredRequired])];
    return required.length > 0 ? { ...schema, required } : schema;
  };
  const fields = {
    'application/json': { schema: withRequired(jsonSchemaOf(object)) },
    'application/x-www-form-urlencoded': { schema: withRequired(jsonSchemaOf(object, 'form')) },
    'multipart/form-data': { schema: withRequired(jsonSchemaOf(object, 'form')) },
  };
  // A platform-facing route takes the form a browser posts, and nothing else.
  if (own.platform) {
    return {
      description: 'A form, as the platform has the browser post it.',
      content: { 'application/x-www-form-urlencoded': fields['application/x-www-form-urlencoded'] },
    };
  }
  if (declared.csv) {
    return {
      description: `A CSV document: the whole \`text/csv\` body, or the field \`${declared.csv}\` in any of the three encodings (a file in a multipart body).`,
      content: { 'text/csv': { schema: { type: 'string' } }, ...fields },
    };
  }
  return { description: 'The same fields in any of the three encodings.', content: fields };
}

const preferenceApplied = { 'Preference-Applied': { $ref: '#/components/headers/Preference-Applied' } };

function responses(route: RouteDefinition, own: RouteContract, answers: RenderedAnswers, etag: boolean): Json {
  const fails = failsOf(route, own);
  const success: JsonSchema = {
    type: 'object',
    description: 'Keys in this order: status, data.',
    required: ['status', 'data'],
    properties: { status: { const: 'success' }, data: answerSchema(answers, own.data) },
  };
  const result: Json = {
    200: {
      description:
        route.successStatus === undefined
          ? 'Without `Prefer: http-status`, every envelope: `success`, or a `fail` or `error` with the messages listed under the other statuses. With it, `success` only.'
          : `Without \`Prefer: http-status\`, every envelope: \`success\`, or a \`fail\` or \`error\` with the messages listed under the other statuses. With it, none: \`success\` is ${route.successStatus}.`,
      headers: {
        ...preferenceApplied,
        ...(etag ? { ETag: { $ref: '#/components/headers/ETag' } } : {}),
        ...Object.fromEntries((own.successHeaders ?? []).map((header) => [header, { $ref: `#/components/headers/${header}` }])),
      },
      content: {
        'application/json': {
          schema: { oneOf: [success, { $ref: '#/components/schemas/FailEnvelope' }, { $ref: '#/components/schemas/ErrorEnvelope' }] },
        },
      },
    },
  };
  if (route.successStatus !== undefined)
    result[route.successStatus] = {
      description: `Accepted: with \`Prefer: http-status\`: \`success\`; the work is queued, not done.`,
      headers: preferenceApplied,
      content: { 'application/json': { schema: success } },
    };
  if (etag) result[304] = { $ref: '#/components/responses/NotModified' };
  Object.assign(result, failResponses(answers, fails));
  result[500] = { $ref: '#/components/responses/Error' };
  return result;
}

interface RenderedAnswers {
  /** `components.schemas`: the shared pieces of answers, by name. */
  readonly components: Record<string, JsonSchema>;
  /** Every other answer schema of the contract (data, a fail's data, a body document), rendered. */
  readonly others: ReadonlyMap<z.core.$ZodType, JsonSchema>;
}

const renderedOf = new WeakMap<Contracts, RenderedAnswers>();

/**
 * The contracts' answer schemas as JSON Schema, in one pass of `z.toJSONSchema` over a registry of
 * them all, so that a shared piece is a `$ref` to its component wherever an answer holds it.
 */
function renderedAnswers(contracts: Contracts): RenderedAnswers {
  const known = renderedOf.get(contracts);
  if (known) return known;
  const registry = z.registry<{ id: string }>();
  const ids = new Map<z.core.$ZodType, string>();
  for (const [id, schema] of Object.entries(components)) {
    registry.add(schema, { id });
    ids.set(schema, id);
  }
  const answers = Object.values<RouteContract>(contracts).flatMap((own) => [
    own.data,
    own.document?.schema,
    ...own.fails.map((fail) => fail.data),
  ]);
  for (const schema of answers) {
    if (schema === undefined || ids.has(schema)) continue;
    const id = `answer-${ids.size}`;
    registry.add(schema, { id });
    ids.set(schema, id);
  }
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    target: 'draft-2020-12',
    // The gradeable document's defaults make its fields optional to send; answers have neither defaults nor transforms.
    io: 'input',
    override: tidy,
  });
  const json: Record<string, JsonSchema> = {};
  for (const [id, { $schema: _version, $id: _id, ...schema }] of Object.entries(schemas)) json[id] = schema;
  const componentNames = new Set(Object.keys(components));
  const answerRef = JSON.stringify(json).match(/"#\/components\/schemas\/(answer-\d+)"/);
  if (answerRef) throw new Error(`An answer schema is part of another; declare it in answers.ts (${answerRef[1]}).`);
  const rendered: RenderedAnswers = {
    components: Object.fromEntries(Object.entries(json).filter(([id]) => componentNames.has(id))),
    others: new Map([...ids].filter(([, id]) => !componentNames.has(id)).map(([schema, id]) => [schema, json[id] as JsonSchema])),
  };
  renderedOf.set(contracts, rendered);
  return rendered;
}

/** An answer schema of a contract as JSON Schema: a shared piece by reference, any other as is. */
function answerSchema(answers: RenderedAnswers, schema: z.core.$ZodType): JsonSchema {
  const component = Object.entries(components).find(([, piece]) => piece === schema)?.[0];
  if (component) return { $ref: `#/components/schemas/${component}` };
  const json = answers.others.get(schema);
  if (!json) throw new Error('An answer schema that is not in the contract');
  return json;
}

/** Leaves out what zod writes but JSON says by itself (JSON's safe integers, the pattern of a date format, string keys). */
function tidy(context: { jsonSchema: JSONSchema.BaseSchema }): void {
  const { jsonSchema } = context;
  integerOverride(context);
  if (jsonSchema.type === 'integer' && jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.type === 'integer' && jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
  if (jsonSchema.type === 'number' && jsonSchema.enum?.every((value) => Number.isInteger(value))) jsonSchema.type = 'integer';
  if (jsonSchema.format === 'date-time' || jsonSchema.format === 'date') delete jsonSchema.pattern;
  if (jsonSchema.type === 'object' && JSON.stringify(jsonSchema.propertyNames) === '{"type":"string"}') delete jsonSchema.propertyNames;
}

/** One response per status of the fail cases, listing their messages. */
function failResponses(answers: RenderedAnswers, fails: readonly FailCase[]): Json {
  const result: Json = {};
  const statuses = [...new Set(fails.map((fail) => fail.status))].sort((a, b) => a - b);
  for (const status of statuses) {
    const cases = fails.filter((fail) => fail.status === status);
    const withData = cases.find((fail) => fail.data);
    const headers: Json = { ...preferenceApplied };
    for (const header of new Set(cases.flatMap((fail) => fail.headers ?? []))) {
      headers[header] = { $ref: `#/components/headers/${header}` };
    }
    result[status] = {
      description: [
        `${httpStatuses[status]} With \`Prefer: http-status\`; otherwise the same envelope comes with 200. Messages (\`{…}\` is filled in):`,
        '',
        ...cases.map((fail) => `- \`${fail.message}\``),
      ].join('\n'),
      headers,
      'x-fail-messages': cases.map((fail) => fail.message),
      content: {
        'application/json': {
          schema: withData?.data
            ? { allOf: [{ $ref: '#/components/schemas/FailEnvelope' }, { properties: { data: answerSchema(answers, withData.data) } }] }
            : { $ref: '#/components/schemas/FailEnvelope' },
          examples: Object.fromEntries(
            cases.map((fail, index) => [
              `message${index + 1}`,
              { summary: fail.message.slice(0, 80), value: { status: 'fail', message: fail.message } },
            ]),
          ),
        },
      },
    };
  }
  return result;
}

/**
 * A platform-facing route's fails, each an HTML page titled with its message: its own, its
 * fields', a POST's body refusals, and the service's failures (503 when trying again may succeed).
 */
function platformFails(route: RouteDefinition, own: RouteContract): FailCase[] {
  const declared: RouteInput = inputOf(route);
  const fieldFails = Object.entries({ ...declared.query, ...declared.body }).flatMap(([field, schema]) =>
    failsOfField(field, schema).map((message): FailCase => ({ status: 400, message })),
  );
  const bodyFails: FailCase[] =
    route.method === 'GET'
      ? []
      : [
          { status: 413, message: bodyTooLarge(maxBodyBytes()).message },
          { status: 415, message: formOnly },
        ];
  const serviceFails: FailCase[] = [
    { status: 503, message: serviceUnavailablePage, headers: ['Retry-After'] },
    { status: 500, message: serviceFailedPage },
  ];
  const seen = new Set<string>();
  return [...fieldFails, ...bodyFails, ...own.fails, ...serviceFails].filter((fail) => {
    const key = `${fail.status} ${fail.message}`;
    return !seen.has(key) && seen.add(key);
  });
}

/** A platform-facing route's answers: its redirects, its page, and its fails as HTML pages titled with the message. */
function platformResponses(route: RouteDefinition, own: RouteContract & { platform: PlatformAnswers }): Json {
  const html = { 'text/html': { schema: { type: 'string' } } };
  const result: Json = {};
  for (const redirect of own.platform.redirects) {
    result[redirect.status] = {
      description: redirect.description,
      headers: { Location: { description: 'Where the browser goes next.', schema: { type: 'string', format: 'uri' } } },
    };
  }
  if (own.platform.page) result[200] = { description: own.platform.page, content: html };
  const fails = failsOf(route, own);
  for (const status of [...new Set(fails.map((fail) => fail.status))].sort((a, b) => a - b)) {
    const cases = fails.filter((fail) => fail.status === status);
    const headers = Object.fromEntries(
      [...new Set(cases.flatMap((fail) => fail.headers ?? []))].map((header) => [header, { $ref: `#/components/headers/${header}` }]),
    );
    result[status] = {
      description: [
        `${httpStatuses[status]} An HTML page whose title (and heading) is the message (\`{…}\` is filled in):`,
        '',
        ...cases.map((fail) => `- \`${fail.message}\``),
      ].join('\n'),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      'x-fail-messages': cases.map((fail) => fail.message),
      content: html,
    };
  }
  return result;
}

function rawResponses(route: RouteDefinition, own: RouteContract, answers: RenderedAnswers): Json {
  const schema = answerSchema(answers, own.data);
  const content = Object.fromEntries((own.rawMediaTypes ?? ['application/json']).map((type) => [type, { schema }]));
  return { 200: { description: 'As is, not in an envelope.', content }, ...failResponses(answers, failsOf(route, own)) };
}

/** What each webhook event says, and the schema of its `data`. */
function webhookEvents(): Record<WebhookEventType, { summary: string; data: JsonSchema }> {
  const inquiryProperties = {
    term: { type: 'string' },
    course: { type: 'string' },
    inquiry_id: { type: 'string', pattern: INQUIRY_ID.source },
    gradeable_id: { type: 'string' },
    owner_id: { type: 'string', description: 'The student, or on a team gradeable their team.' },
    component_id: {
      anyOf: [{ type: 'integer' }, { type: 'null' }],
      description: 'The rubric component asked about; null when about the whole grade.',
    },
    by: { type: 'string', description: 'Who made the change: the student or grader, by user id.' },
  };
  return {
    'submission.graded': {
      summary: 'A version was graded (its results are in `values` and `attempts`).',
      data: {
        type: 'object',
        required: ['term', 'course', 'gradeable_id', 'owner_id', 'version', 'points', 'message', 'commit'],
        properties: {
          term: { type: 'string' },
          course: { type: 'string' },
          gradeable_id: { type: 'string' },
          owner_id: { type: 'string', description: 'The student, or the team on team gradeables.' },
          version: { type: 'integer' },
          points: { type: 'number', description: 'The points students see (hidden test cases left out).' },
          message: { type: 'null' },
          commit: {
            anyOf: [{ type: 'string', pattern: '^[0-9a-f]{40}$' }, { type: 'null' }],
            description:
              "The commit graded: the one the version's first grading checked out (null before any checkout, and for repositories without history).",
          },
        },
      },
    },
    'submission.failed': {
      summary: 'Grading a version failed for good (a message says why; submitting again starts over).',
      data: {
        type: 'object',
        required: ['term', 'course', 'gradeable_id', 'owner_id', 'version', 'points', 'message', 'commit'],
        properties: {
          term: { type: 'string' },
          course: { type: 'string' },
          gradeable_id: { type: 'string' },
          owner_id: { type: 'string' },
          version: { type: 'integer' },
          points: { type: 'number', const: 0 },
          message: { type: 'string' },
          commit: {
            anyOf: [{ type: 'string', pattern: '^[0-9a-f]{40}$' }, { type: 'null' }],
            description:
              "The commit graded: the one the version's first grading checked out (null before any checkout, and for repositories without history).",
          },
        },
      },
    },
    'summaries.generated': {
      summary: "A new generation of the course's grade summaries is current (on request or nightly).",
      data: {
        type: 'object',
        required: ['term', 'course', 'summaries', 'generated_at', 'generation'],
        properties: {
          term: { type: 'string' },
          course: { type: 'string' },
          summaries: { type: 'integer' },
          generated_at: { type: 'string', format: 'date-time' },
          generation: { type: 'string' },
        },
      },
    },
    'inquiry.opened': {
      summary: 'A student opened a grade inquiry, or someone reopened one (`reopened`).',
      data: {
        type: 'object',
        required: ['term', 'course', 'inquiry_id', 'gradeable_id', 'owner_id', 'component_id', 'by', 'reopened'],
        properties: {
          ...inquiryProperties,
          reopened: { type: 'boolean', description: 'False when the student opened it, true when it was reopened.' },
        },
      },
    },
    'inquiry.resolved': {
      summary: 'A grader resolved a grade inquiry.',
      data: {
        type: 'object',
        required: ['term', 'course', 'inquiry_id', 'gradeable_id', 'owner_id', 'component_id', 'by'],
        properties: inquiryProperties,
      },
    },
    'similarity.completed': {
      summary: 'A similarity run of a gradeable is done: its pairs are ready to review (GET …/similarity/{run_id}). It names no student.',
      data: {
        type: 'object',
        required: ['term', 'course', 'gradeable_id', 'run_id', 'submissions', 'pairs_kept'],
        properties: {
          term: { type: 'string' },
          course: { type: 'string' },
          gradeable_id: { type: 'string' },
          run_id: { type: 'string' },
          submissions: { type: 'integer', description: 'Active versions compared.' },
          pairs_kept: { type: 'integer', description: 'Pairs kept, the most similar.' },
        },
      },
    },
  };
}

/** OpenAPI 3.1 `webhooks`: the requests this API sends to registered URLs, one per event. */
function webhookOperations(): Json {
  return Object.fromEntries(Object.entries(webhookEvents()).map(([type, event]) => [type, webhookOperation(type, event)]));
}

/** The request this API sends for one event type. */
function webhookOperation(type: string, event: { summary: string; data: JsonSchema }): Json {
  const header = (description: string) => ({ in: 'header', required: true, description, schema: { type: 'string' } });
  return {
    post: {
      operationId: `webhook-${type}`,
      summary: event.summary,
      description:
        "Sent to every webhook of the course registered for this event, signed by the Standard Webhooks scheme with the webhook's secret. " +
        'Answer with any 2xx within 10 seconds; anything else is retried with back-off (by default after 5 s, 5 min, 30 min and 2 h), then the delivery is kept as failed for replay. ' +
        'The same message may arrive more than once: `webhook-id` tells repeats apart.',
      tags: ['Webhooks'],
      // The receiver checks the signature, not a token of this API.
      security: [],
      parameters: [
        { name: 'webhook-id', ...header('The message id (`msg_…`), the same on every attempt.') },
        { name: 'webhook-timestamp', ...header('When this attempt was sent, in seconds since 1970.') },
        {
          name: 'webhook-signature',
          ...header(
            '`v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` keyed by the secret (the base64 after `whsec_`).',
          ),
        },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              allOf: [
                { $ref: '#/components/schemas/WebhookPayload' },
                { type: 'object', properties: { type: { const: type }, data: event.data } },
              ],
            },
          },
        },
      },
      responses: { 200: { description: 'Received (any 2xx).' } },
    },
  };
}
