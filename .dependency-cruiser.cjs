/**
 * Which way imports may point: `functions/` → `shared/http/` → the domain folders, in
 * the order below → `shared/data/` → the base modules. `npm run lint:deps` (part of `npm test`)
 * fails on an import against that direction and on any import cycle, between modules or folders.
 * Type-only imports count like any other.
 *
 * The base modules (`shared/*.ts`: errors, config, environment, logger, ids) may be imported from
 * anywhere and import only each other. The data layer (`shared/data/`) holds the stored record
 * types; the domain re-exports the ones it names.
 */

/**
 * The domain folders of `shared/`, highest first: each may import those after it (and the data
 * layer and base modules), never one before it. Read models come first (the gradebook and grade
 * summaries read submissions, TA grades and gradeables; similarity reports compare submitted files, run on the summaries queue); submitting a version queues a grading
 * job in `queue` (tickets, lanes, shares, reservations, the claim, wake-ups), where the grading
 * worker claims it, so both import the queue; the grading worker publishes webhook events; grade inquiries are about TA grades; gradeables belong to courses; courses enroll
 * users with passwords (auth); `network` holds the address rules that the git checkout and
 * webhook delivery both apply; `files` the rules of submitted files (names, limits, zips), which
 * submitting and grading both apply; `storage` is the submissions bucket, used by whatever reads or
 * writes submitted files.
 */
const DOMAIN_ORDER = [
  'docs',
  'gradebook',
  'similarity',
  'summaries',
  'submissions',
  'inquiries',
  'tagrading',
  'grading',
  'queue',
  'lti',
  'webhooks',
  'gradeables',
  'courses',
  'auth',
  'users',
  'network',
  'files',
  'storage',
];

const folder = (name) => `^shared/${name}/`;
const anyOf = (names) => `^shared/(${names.join('|')})/`;

/** One rule per domain folder: nothing it may not import is above it. */
const domainOrder = DOMAIN_ORDER.slice(1).map((name, index) => ({
  name: `domain-order-${name}`,
  comment: `shared/${name} is below ${DOMAIN_ORDER.slice(0, index + 1).join(', ')} (see DOMAIN_ORDER in .dependency-cruiser.cjs)`,
  severity: 'error',
  from: { path: folder(name) },
  to: { path: anyOf(DOMAIN_ORDER.slice(0, index + 1)) },
}));

/**
 * The rooms of `shared/grading/`, highest first: each may import those after it and the modules at
 * the top of `shared/grading/` (the queue, regrades, the run's protocol), never one before it. The
 * worker prepares jobs, hands them to an engine (the CodeBuild builds, or the local runner) and
 * records their outcome; both engines start the harness, what runs in a sandbox; the checkout,
 * lowest, reads repositories and copies file trees (for the engines and the harness alike).
 */
const GRADING_ROOMS = ['worker', 'builds', 'runner', 'harness', 'checkout'];

const gradingRoomOrder = GRADING_ROOMS.slice(1).map((name, index) => ({
  name: `grading-room-order-${name}`,
  comment: `shared/grading/${name} is below ${GRADING_ROOMS.slice(0, index + 1).join(', ')} (see GRADING_ROOMS in .dependency-cruiser.cjs)`,
  severity: 'error',
  from: { path: `^shared/grading/${name}/` },
  to: { path: `^shared/grading/(${GRADING_ROOMS.slice(0, index + 1).join('|')})/` },
}));

/** What only tests read of a function's folder: its test rows and its steps in the deployed day, and their indexes. */
const TEST_DATA = '^functions/((test-rows|day-steps)\\.ts$|[^/]+/(test-rows|day)\\.ts$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No module imports itself through others.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      comment: 'No folder reaches itself through the imports of its modules.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'base-modules-import-only-each-other',
      comment: 'errors, config, environment, logger and ids are imported from everywhere, so they import nothing else of shared/.',
      severity: 'error',
      from: { path: '^shared/[^/]+\\.ts$' },
      to: { path: '^(shared/[^/]+/|functions/|infra/)' },
    },
    {
      name: 'data-is-the-lowest-layer',
      comment: 'shared/data imports only base modules, other data modules and libraries: no domain folder, HTTP layer, function or infra.',
      severity: 'error',
      from: { path: '^shared/data/' },
      to: { path: '^(shared/[^/]+/|functions/|infra/)', pathNot: '^shared/data/' },
    },
    {
      name: 'domain-not-http',
      comment: 'Domain code knows nothing of HTTP: shared/http and functions sit above it.',
      severity: 'error',
      from: { path: anyOf(DOMAIN_ORDER) },
      to: { path: '^(shared/http/|functions/)' },
    },
    {
      name: 'http-not-functions',
      comment: 'shared/http is what the functions use; it does not import them.',
      severity: 'error',
      from: { path: '^shared/http/' },
      to: { path: '^functions/' },
    },
    {
      name: 'functions-do-not-check-answers',
      comment:
        "The answer schemas (each route's contract.ts and their index, shared/http/contract.ts and answers.ts, answer-check.ts) are for the OpenAPI document, the tests and npm start: no other function bundles them.",
      severity: 'error',
      from: { path: '^functions/', pathNot: '^functions/(openapi/|contracts\\.ts$|[^/]+/contract\\.ts$)' },
      to: {
        path: '^(shared/http/(contract|answers)|infra/answer-check|functions/contracts|functions/[^/]+/contract)\\.ts$',
        reachable: true,
      },
    },
    {
      name: 'functions-do-not-carry-test-rows',
      comment:
        "A function folder's test-rows.ts and day.ts (its steps in the deployed day), their indexes (functions/test-rows.ts, functions/day-steps.ts) and what they import of test/ are the tests' data: no function imports them, so no bundle carries them.",
      severity: 'error',
      from: { path: '^functions/', pathNot: TEST_DATA },
      to: { path: `(${TEST_DATA}|^test/)`, reachable: true },
    },
    {
      name: 'nothing-imports-tests',
      comment: "functions/, shared/ and infra/ never import test/ (a function folder's test rows and deployed-day steps excepted).",
      severity: 'error',
      from: { path: '^(functions|shared|infra)/', pathNot: TEST_DATA },
      to: { path: '^test/' },
    },
    {
      name: 'shared-not-infra',
      comment: 'Nothing in shared/ imports infra/ (the stack, the local server, the admin command line).',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^infra/' },
    },
    {
      name: 'known-shared-folders',
      comment: 'A new folder of shared/ takes its place in DOMAIN_ORDER (or is http or data) before anything imports it.',
      severity: 'error',
      from: {},
      to: { path: '^shared/[^/]+/', pathNot: `^shared/(http|data|${DOMAIN_ORDER.join('|')})/` },
    },
    {
      name: 'not-resolvable',
      comment: 'Every relative and #-prefixed import resolves to a file (otherwise the rules above cannot see it).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, path: '^[.#]' },
    },
    ...domainOrder,
    ...gradingRoomOrder,
  ],
  options: {
    // The tests are not layered: the test rows' imports of test/ end there.
    doNotFollow: { path: ['node_modules', '^test/'] },
    exclude: { path: ['^node_modules/', '^cdk\\.out/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.json'],
      conditionNames: ['import', 'node', 'default', 'types'],
    },
    skipAnalysisNotInRules: true,
  },
};
