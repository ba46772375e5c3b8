/**
 * What a function's folder tells the cross-cutting tests about it, in `functions/<name>/test-rows.ts`
 * (gathered by name in `functions/test-rows.ts`, where type-checking fails while a function has
 * none): the IAM policy test/infra/stack.test.ts expects of its role, the cases
 * test/hardening/authorization.test.ts runs as every persona, and, for a route that writes, a body
 * it accepts, which test/hardening/hostile-input.test.ts corrupts. Test data only: no handler
 * imports it (`npm run lint:deps`), so no function's bundle carries it.
 */
import type { MatrixCase } from './authorization-matrix.ts';

/** What the hostile-input test knows when it builds a valid body or a route's path. */
export interface FuzzWorld {
  readonly term: string;
  readonly course: string;
  readonly userIds: { readonly instructor: string; readonly student: string; readonly student2: string };
  /** A fresh code each call (course, term, gradeable and user ids of writing routes). */
  readonly unique: (prefix: string) => string;
  /** A webhook receiver URL registration accepts (nothing is ever delivered to it). */
  readonly webhookUrl: string;
  /** An upload id of the right shape that names no upload. */
  readonly uploadId: string;
  /** A VCS gradeable open for submissions: the `gradeable_id` of a route's path unless its `fuzzedPath` names another. */
  readonly homework: string;
  /** A team gradeable (teams of at most 2). */
  readonly teamGradeable: string;
  /** An Electronic File gradeable without version control, open for submissions. */
  readonly filesGradeable: string;
}

interface FunctionRows {
  /**
   * Everything the function's role allows besides writing its own logs, as `action resource` pairs
   * (test/infra/expected-policies.ts), stated by hand: a change to what a function may do shows up
   * here, in review.
   */
  readonly policy: readonly string[];
}

/** A route that only reads (GET). */
export interface ReadRouteRows extends FunctionRows {
  /** The requests that matter (one per object-level variation) and the answer each persona must get, on every path of the route. */
  readonly authorization: readonly MatrixCase[];
  /** Path parameters the hostile-input test fills in other than the world's own course, VCS homework and student. */
  readonly fuzzedPath?: (world: FuzzWorld) => Readonly<Record<string, string>>;
  readonly validBody?: never;
}

/** A route that writes (POST, PUT, DELETE). */
export interface WriteRouteRows extends Omit<ReadRouteRows, 'validBody'> {
  /** A request body the route accepts, as its callers send it (`{}`: it takes none). */
  readonly validBody: (world: FuzzWorld) => Record<string, unknown>;
}

/** A route's rows by its method: a route that writes has a valid body. */
export type RouteRows<Method extends string> = Method extends 'GET' ? ReadRouteRows : WriteRouteRows;

/** A function that serves no route: its policy only. */
export type WorkerRows = FunctionRows;
