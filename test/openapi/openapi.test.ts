import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockoutMessage } from '#shared/auth/lockout.ts';
import { contracts } from '#functions/contracts.ts';
import { declaredFailures } from '#shared/errors.ts';
import { BODY_FAILS, endpointNotFound, methodNotAllowed, refusalStatus } from '#shared/http/failures.ts';
import { pathParameters } from '#shared/http/parameters.ts';
import { failsOf, httpStatuses, openApiDocument } from '#shared/http/openapi.ts';
import { routeKeys, routes, type RouteName } from '#functions/definitions.ts';
import { lateRefusal } from '#shared/submissions/submission.ts';
import { handler as issueToken } from '#functions/issue-token/handler.ts';
import { apiEvent, lambdaContext } from '../support/events.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

const run = promisify(execFile);
/** A part of the OpenAPI document. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document's parts, read freely by the tests, which check them with expect
type Json = Record<string, any>;
const document = openApiDocument(routes, contracts) as Json;
const names = Object.keys(routes) as RouteName[];

/** A documented message (`{…}` filled in per request) as a pattern. */
const templatePattern = (message: string) =>
  new RegExp(
    `^${message
      .split(/\{[^}]*\}/)
      .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('.+')}$`,
  );
const documented = [
  ...new Set([
    ...names.flatMap((name) => failsOf(routes[name], contracts[name]).map((fail) => fail.message)),
    endpointNotFound().message,
    methodNotAllowed([]).message,
  ]),
];
const isDocumented = (message: string) => documented.some((template) => template === message || templatePattern(template).test(message));

describe('the contract', () => {
  it('has an entry for every route, and none for a route that does not exist', () => {
    for (const name of names) expect(contracts[name], `functions/${name}/contract.ts is missing`).toBeDefined();
    expect(Object.keys(contracts).sort()).toEqual([...names].sort());
  });

  it('defines every path parameter of every route and alias', () => {
    for (const key of routeKeys) {
      for (const [, parameter] of key.path.matchAll(/\{(\w+)\}/g))
        expect((pathParameters as Record<string, unknown>)[parameter!], `${key.path}: {${parameter}}`).toBeDefined();
    }
  });

  it('lists every failure the code declares, with the status of its kind', async () => {
    // Fail messages are declared once, with failure() in a failures.ts beside the code that throws
    // them; the contract lists those same declarations (fail(...)), so their words cannot drift.
    const catalogues = readdirSync('shared', { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('failures.ts'));
    for (const file of catalogues) await import(pathToFileURL(join(process.cwd(), 'shared', file)).href);
    expect(declaredFailures.length).toBeGreaterThan(50);
    const listed = names.flatMap((name) => failsOf(routes[name], contracts[name]).map((fail) => `${fail.status} ${fail.message}`));
    for (const declared of declaredFailures) {
      expect(listed, `${declared.template} is declared but no route lists it`).toContain(
        `${refusalStatus[declared.kind]} ${declared.template}`,
      );
    }
    // Messages rules build from numbers (plural forms), listed as templates.
    for (const message of [lockoutMessage(1), lockoutMessage(600), lateRefusal(3, { late_submission_allowed: false, late_days: 1 })!]) {
      expect(isDocumented(message), message).toBe(true);
    }
  });

  it('lists the body parser’s messages', async () => {
    const bodies: [string, string][] = [
      ['application/json', '{"user_id":'],
      ['application/json', '[1,2]'],
      ['multipart/form-data; boundary=x', '--y\r\nbroken'],
    ];
    for (const [contentType, body] of bodies) {
      const answer = await issueToken(
        apiEvent({ method: 'POST', path: '/api/token', headers: { 'content-type': contentType }, body }),
        lambdaContext(),
      );
      const { message } = JSON.parse(answer.body!) as { message: string };
      expect(BODY_FAILS, `${contentType}: ${message}`).toContain(message);
    }
  });
});

describe('the OpenAPI document', () => {
  it('has every route and alias, with unique operation ids', () => {
    const ids: string[] = [];
    for (const key of routeKeys) {
      const operation = document.paths[key.path]?.[key.method.toLowerCase()];
      expect(operation, `${key.method} ${key.path}`).toBeDefined();
      ids.push(operation.operationId);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect((Object.values(document.paths) as Json[]).flatMap((item) => Object.keys(item))).toHaveLength(routeKeys.length);
  });

  it('describes the envelopes, Prefer: http-status, the statuses, the token and Idempotency-Key', () => {
    const { components } = document;
    expect(Object.keys(components.schemas.FailEnvelope.properties)).toEqual(['status', 'data', 'message']);
    expect(Object.keys(components.schemas.ErrorEnvelope.properties)).toEqual(['status', 'message', 'code']);
    expect(components.schemas.ErrorEnvelope.required).toEqual(['status', 'message', 'code']);
    expect(components.schemas.ErrorEnvelope.properties.code.enum).toEqual(['RETRYABLE', 'UNKNOWN_OUTCOME', 'INTERNAL']);
    expect(components.parameters.Prefer).toMatchObject({ name: 'Prefer', in: 'header' });
    expect(components.headers['Preference-Applied']).toBeDefined();
    expect(components.securitySchemes).toMatchObject({
      token: { type: 'apiKey', name: 'Authorization' },
      bearer: { type: 'http', scheme: 'bearer' },
    });

    const me = document.paths['/api/me'].get;
    expect(me.security).toEqual([{ token: [] }, { bearer: [] }]);
    expect(me.responses[200].content['application/json'].schema.oneOf[0].properties.data.properties).toHaveProperty('user_id');
    expect(me.responses[401]['x-fail-messages']).toEqual(['Unauthenticated access. Please log in.']);
    expect(me.responses[401].headers).toHaveProperty('Preference-Applied');
    expect(document.paths['/api/token'].post.security).toEqual([]);
    expect(document.paths['/api/token/invalidate'].post.security).toEqual([{}, { token: [] }, { bearer: [] }]);

    const submit = document.paths['/api/{semester}/{course}/gradeable/{gradeable_id}/upload'].post;
    expect(submit.parameters.map((parameter: Json) => parameter.name ?? parameter.$ref)).toEqual([
      'semester',
      'course',
      'gradeable_id',
      'Idempotency-Key',
      // A submission reads Prefer itself: return=representation besides http-status.
      'Prefer',
    ]);
    expect(submit.parameters.at(-1).description).toMatch(/`http-status`.*`return=representation`/);
    expect(Object.keys(submit.requestBody.content)).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
    expect(submit.requestBody.content['application/x-www-form-urlencoded'].schema.properties.vcs_checkout.type).toBe('string');
    expect(submit.responses[422]['x-fail-messages']).toContain('This Idempotency-Key was already used for a different request.');
    const alias = document.paths['/api/{semester}/{course}/gradeable/{gradeable_id}/grade'].post;
    expect(alias.operationId).toBe('submit-vcs-alias-1');

    const login = document.paths['/api/token'].post;
    expect(login.responses[429].headers).toHaveProperty('Retry-After');
    expect(login.requestBody.content['application/json'].schema.properties.password).toMatchObject({ type: 'string', maxLength: 1024 });

    const used = new Set<string>();
    for (const item of Object.values(document.paths) as Json[])
      for (const operation of Object.values(item)) for (const status of Object.keys(operation.responses)) used.add(status);
    // 202: the success of a route that only queues its work (a similarity run), with Prefer: http-status; 302 and 303: a platform-facing route's redirect (the LTI login, the LTI launch).
    for (const status of used) expect(['200', '202', '302', '303', '304'].includes(status) || status in httpStatuses, status).toBe(true);
    const similarity = document.paths['/api/{semester}/{course}/gradeable/{gradeable_id}/similarity'].post;
    expect(similarity.responses[202].content['application/json'].schema.properties.status).toEqual({ const: 'success' });
    expect(similarity.responses[200].description).toMatch(/`success` is 202/);
    expect(document.paths['/api/me'].get.responses[202]).toBeUndefined();
    for (const status of ['400', '401', '403', '404', '409', '413', '415', '422', '429', '500']) expect(used, status).toContain(status);
    expect(document.components.parameters.Prefer.description).toContain('405');

    // Cheap polling: values and attempts take If-None-Match and may answer 304 with their ETag.
    for (const path of [
      '/api/{semester}/{course}/gradeable/{gradeable_id}/values',
      '/api/{semester}/{course}/gradeable/{gradeable_id}/attempts',
    ]) {
      const operation = document.paths[path].get;
      expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/IfNoneMatch' });
      expect(operation.responses[200].headers).toHaveProperty('ETag');
      expect(operation.responses[304]).toEqual({ $ref: '#/components/responses/NotModified' });
    }
    expect(document.paths['/api/me'].get.responses[304]).toBeUndefined();
    // The requests webhooks receive, one per event.
    expect(Object.keys(document.webhooks)).toEqual([
      'submission.graded',
      'submission.failed',
      'summaries.generated',
      'inquiry.opened',
      'inquiry.resolved',
      'similarity.completed',
    ]);
    expect(document.webhooks['submission.graded'].post.parameters.map((parameter: Json) => parameter.name)).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
    expect(document.paths['/api/docs'].get.responses[200].content).toHaveProperty('text/html');
    // The LTI login answers as LTI says: a redirect with Location, or an HTML page titled with its fail.
    const ltiLogin = document.paths['/api/lti/login'].get;
    expect(ltiLogin.responses[302].headers).toHaveProperty('Location');
    expect(ltiLogin.responses[404].content).toEqual({ 'text/html': { schema: { type: 'string' } } });
    expect(ltiLogin.responses[404]['x-fail-messages']).toEqual(['No LTI registration for the issuer {issuer} with client id {client_id}.']);
    expect(ltiLogin.responses[503].headers).toHaveProperty('Retry-After');
    expect(ltiLogin.parameters.map((parameter: Json) => parameter.name)).toEqual([
      'iss',
      'login_hint',
      'target_link_uri',
      'lti_message_hint',
      'client_id',
      'lti_deployment_id',
    ]);
  });

  describe('linted by Redocly, offline', () => {
    let folder: string;
    beforeAll(async () => {
      folder = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
    });
    afterAll(() => rm(folder, { recursive: true, force: true }));

    it('is valid OpenAPI 3.1 with no errors and only the expected warnings', async () => {
      const spec = join(folder, 'openapi.json');
      const config = join(folder, 'redocly.yaml');
      const blocker = join(folder, 'no-network.mjs');
      const networkLog = join(folder, 'network.log');
      await writeFile(spec, JSON.stringify(document, null, 2));
      await writeFile(config, 'extends:\n  - recommended\ntelemetry: off\n');
      // Any connection or lookup the linter attempts is refused and recorded.
      await writeFile(
        blocker,
        [
          "import net from 'node:net'; import dns from 'node:dns'; import { appendFileSync } from 'node:fs';",
          `const log = (what) => appendFileSync(${JSON.stringify(networkLog)}, what + '\\n');`,
          "net.Socket.prototype.connect = function (options) { log('connect ' + JSON.stringify(options?.host ?? options)); throw new Error('no network in tests'); };",
          "dns.lookup = (host, ...rest) => { log('lookup ' + host); rest.at(-1)(new Error('no network in tests')); };",
          "globalThis.fetch = async (url) => { log('fetch ' + url); throw new Error('no network in tests'); };",
        ].join('\n'),
      );
      const cli = join('node_modules', '@redocly', 'cli', 'bin', 'cli.js');
      const { stdout } = await run(
        process.execPath,
        ['--import', pathToFileURL(blocker).href, cli, 'lint', spec, '--config', config, '--format=json'],
        {
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' },
          maxBuffer: 64 * 1024 * 1024,
        },
      ).catch((error: { stdout?: string; stderr?: string }) => {
        throw new Error(`redocly lint failed:\n${error.stdout}\n${error.stderr}`);
      });
      const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
        totals: { errors: number };
        problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
      };
      const problems = report.problems.map((problem) => `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer}`);
      expect(report.totals.errors, problems.join('\n')).toBe(0);
      // Accepted: no license (each institution deploys its own copy); localhost is the default
      // server (the served document names the host it was fetched from); the document, the
      // reference page, the LTI tool's key set and configuration and the grading records' key set cannot fail; GET …/{gradeable_id}/download and DELETE …/webhooks/{webhook_id}
      // share a shape but no method; GET …/late-days/{user_id} and the reference's
      // /api/courses/{semester}/{course}/users alias would both fit /api/courses/<c>/late-days/users
      // only for a term named `courses` (the literal segments decide, as in API Gateway), and so
      // would GET …/regrades/{regrade_id} (for /api/courses/<c>/regrades/users), PUT and DELETE
      // …/gradeable/{gradeable_id} beside /api/courses/{semester}/{course}/config (a term named
      // `courses` and a course named `gradeable`: the literal segments decide), and PUT and DELETE
      // …/users/{user_id} (for /api/courses/<c>/users/users; POST …/users/import is literal and wins).
      expect(problems.sort()).toEqual([
        'warn info-license #/info',
        'warn no-ambiguous-paths #/paths/~1api~1{semester}~1{course}~1gradeable~1{gradeable_id}',
        'warn no-ambiguous-paths #/paths/~1api~1{semester}~1{course}~1late-days~1{user_id}',
        'warn no-ambiguous-paths #/paths/~1api~1{semester}~1{course}~1regrades~1{regrade_id}',
        'warn no-ambiguous-paths #/paths/~1api~1{semester}~1{course}~1users~1{user_id}',
        'warn no-ambiguous-paths #/paths/~1api~1{semester}~1{course}~1webhooks~1{webhook_id}',
        'warn no-server-example.com #/servers/0/url',
        // The LTI login succeeds with a redirect to the platform, never a 2xx.
        'warn operation-2xx-response #/paths/~1api~1lti~1login/get/responses',
        'warn operation-2xx-response #/paths/~1api~1lti~1login/post/responses',
        'warn operation-4xx-response #/paths/~1api~1auth/get/responses',
        'warn operation-4xx-response #/paths/~1api~1docs/get/responses',
        'warn operation-4xx-response #/paths/~1api~1lti~1config/get/responses',
        'warn operation-4xx-response #/paths/~1api~1lti~1jwks/get/responses',
        'warn operation-4xx-response #/paths/~1api~1openapi.json/get/responses',
        'warn operation-4xx-response #/paths/~1api~1records~1jwks/get/responses',
      ]);
      expect(await readFile(networkLog, 'utf8').catch(() => '')).toBe('');
    }, 60_000);
  });

  it('is bundled without handler modules, data access or the AWS SDK', async () => {
    const { metafile } = await build({
      entryPoints: ['functions/openapi/handler.ts'],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
    });
    const inputs = Object.keys(metafile.inputs);
    // Of functions/ only its own handler and the definitions (method, path, inputs) and contracts (answers) it renders.
    expect(
      inputs.filter(
        (input) => input.startsWith('functions/') && !/^functions\/([a-z-]+\/(definition|contract)|definitions|contracts)\.ts$/.test(input),
      ),
    ).toEqual(['functions/openapi/handler.ts']);
    // zod renders the declared inputs (nothing else from node_modules); of shared/auth only its fail messages; of
    // shared/data only plain declarations: the webhook records' (the events a webhook can receive) and
    // what one transaction holds (the largest team a gradeable may ask for).
    expect(
      inputs.filter((input) =>
        /node_modules\/(?!zod\/)|shared\/(data\/(?!webhook-records\.ts|transaction-limits\.ts)|auth\/(?!failures\.ts))|middleware/.test(
          input,
        ),
      ),
    ).toEqual([]);
  });
});

describe('GET /api/openapi.json', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api?.close());

  it('serves the document as is, naming the server it was reached at', async () => {
    const answer = await api.get('/openapi.json');
    expect(answer.httpStatus).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.json).toMatchObject({ openapi: '3.1.0', servers: [{ url: api.url.replace(/\/api$/, '') }] });
    expect((answer.json as Json).paths).toEqual(document.paths);
    expect((await api.call('POST', '/openapi.json')).json).toMatchObject({ status: 'fail', message: 'Method not allowed.' });
  });
});
