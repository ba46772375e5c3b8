/**
 * Request fields several routes share: every path parameter (by name, the same on every route), a
 * user id in the query, a course or term code, and a paged list's `page_size` and `cursor`.
 */
import * as z from 'zod/mini';
import { MAX_CURSOR_LENGTH, MAX_PAGE_BYTES, MAX_PAGE_SIZE, PAGE_SIZE } from '#shared/paging.ts';
import {
  CODE,
  DELIVERY_ID,
  GRADEABLE_ID,
  IDEMPOTENCY_KEY,
  LTI_REGISTRATION_ID,
  LTI_SCORE_DELIVERY_ID,
  INQUIRY_ID,
  REGRADE_ID,
  SUMMARIES_JOB_ID,
  GRADEBOOK_EXPORT_ID,
  SIMILARITY_PAIR_ID,
  SIMILARITY_RUN_ID,
  TEAM_ID,
  USER_ID,
  WEBHOOK_ID,
} from '#shared/ids.ts';
import { documented, flag, text } from './fields.ts';

type Shape = Readonly<Record<string, z.ZodMiniType>>;

/** An object whose every property is built by its function when first read, then kept. */
function builtOnFirstRead<Builders extends Record<string, () => unknown>>(
  builders: Builders,
): { readonly [Key in keyof Builders]: ReturnType<Builders[Key]> } {
  const built: Record<string, unknown> = {};
  for (const [key, build] of Object.entries(builders)) {
    Object.defineProperty(built, key, {
      enumerable: true,
      get() {
        const value = build();
        Object.defineProperty(built, key, { enumerable: true, value });
        return value;
      },
      configurable: true,
    });
  }
  return built as { readonly [Key in keyof Builders]: ReturnType<Builders[Key]> };
}

/**
 * Every `{name}` of a route path, by name: the one schema each route's path is read with
 * (request.ts). A value not of its kind reaches no read nor handler: the course check refuses a
 * malformed course, and each route says what any other answers (`malformed`, endpoint.ts).
 */
export const pathParameters = builtOnFirstRead({
  semester: () => documented(z.string().check(z.regex(CODE)), { description: 'The term code (e.g. `f26`).' }),
  course: () => documented(z.string().check(z.regex(CODE)), { description: 'The course code (e.g. `sample`).' }),
  gradeable_id: () => documented(z.string().check(z.regex(GRADEABLE_ID)), { description: 'The gradeable id.' }),
  user_id: () => documented(z.string().check(z.regex(USER_ID)), { description: 'A user id.' }),
  webhook_id: () => documented(z.string().check(z.regex(WEBHOOK_ID)), { description: 'A webhook id (`wh_…`).' }),
  delivery_id: () =>
    documented(z.string().check(z.regex(DELIVERY_ID)), { description: 'A delivery id (`msg_…`), also its `webhook-id` header.' }),
  regrade_id: () => documented(z.string().check(z.regex(REGRADE_ID)), { description: 'A regrade id (`rg_…`), as the regrade answered.' }),
  job_id: () =>
    documented(z.string().check(z.regex(SUMMARIES_JOB_ID)), {
      description: 'A summaries job id (`sj_…`), as generating the summaries answered.',
    }),
  export_id: () =>
    documented(z.string().check(z.regex(GRADEBOOK_EXPORT_ID)), {
      description: 'A gradebook export id (`ge_…`), as asking for the export answered.',
    }),
  run_id: () =>
    documented(z.string().check(z.regex(SIMILARITY_RUN_ID)), {
      description: 'A similarity run id (`sr_…`), as asking for the report answered.',
    }),
  pair_id: () =>
    documented(z.string().check(z.regex(SIMILARITY_PAIR_ID)), {
      description: "A pair of a similarity run (its rank, from 1), as the run's report answered.",
    }),
  asset: () => documented(z.string(), { description: 'A versioned asset name, as the reference page links it.' }),
  inquiry_id: () =>
    documented(z.string().check(z.regex(INQUIRY_ID)), { description: 'A grade inquiry id (`iq_…`), as opening it answered.' }),
  registration_id: () =>
    documented(z.string().check(z.regex(LTI_REGISTRATION_ID)), {
      description: 'An LTI registration id (`lti_…`), as registering the platform answered.',
    }),
  score_delivery_id: () =>
    documented(z.string().check(z.regex(LTI_SCORE_DELIVERY_ID)), {
      description: 'An LMS score delivery id (`ls_…`), as the list of score deliveries answered.',
    }),
  team_id: () => documented(z.string().check(z.regex(TEAM_ID)), { description: 'A team id: 1 to 64 letters, digits, `_` or `-`.' }),
}) satisfies Shape;

export const userIdQuery = (description: string) => documented(z.string(), { description });
export const staffUserIdQuery = () => userIdQuery("Another user's id (staff of the course; see the route's description).");
export const code = (description: string) => text(256, { description, pattern: CODE });
const pageMiB = MAX_PAGE_BYTES / 1024 / 1024;
/** `page_size` and `cursor` of a paged list (shared/paging.ts); `whole`: answered whole unless a page is asked for. */
export const paging = (items: string, defaultSize: number | 'whole') => ({
  page_size: z.optional(
    documented(z.string(), {
      description:
        defaultSize === 'whole'
          ? `${items} per page, 1 to ${MAX_PAGE_SIZE}. Left out (and without cursor): the whole list while its JSON fits in ${pageMiB} MiB, otherwise the first ${pageMiB} MiB with a \`Link\` to the rest.`
          : `${items} per page, 1 to ${MAX_PAGE_SIZE} (${defaultSize} when left out); a page ends sooner once its JSON reaches ${pageMiB} MiB.`,
      pattern: PAGE_SIZE.source,
    }),
  ),
  cursor: z.optional(
    documented(z.string(), {
      description: 'Where the next page starts: from the previous answer\'s `Link: <…>; rel="next"` header.',
      maxLength: MAX_CURSOR_LENGTH,
    }),
  ),
});

/** `dry_run=true`: check and answer what would be stored, writing nothing. */
export const dryRun = () => flag({ description: 'true: check the request and answer what would be stored, writing nothing.' });
/** A download's ETag: the change applies only to the gradeable as downloaded. */
export const ifMatch = () =>
  documented(z.string().check(z.maxLength(512)), {
    description: "The ETag of the gradeable's download: refused (412 with Prefer: http-status) when it changed since.",
  });

/** Makes a submission safe to retry; the token check's reads and the handler read it from the request's view. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** A submitting route's request headers: its Idempotency-Key. */
export const idempotencyKeyHeader = () => ({
  [IDEMPOTENCY_KEY_HEADER]: z.optional(
    documented(z.string(), {
      description: 'Makes retries safe: a repeat within 24 hours gets the first answer and creates nothing.',
      pattern: IDEMPOTENCY_KEY.source,
    }),
  ),
});

export const PREFER_HEADER = 'Prefer';

/**
 * A submitting route's `Prefer` header, which it reads itself (every other route's is read by the
 * envelope alone): `return=representation` besides `http-status`.
 */
export const submissionPreferHeader = () => ({
  [PREFER_HEADER]: z.optional(
    documented(z.string(), {
      description:
        'Preferences (RFC 7240), comma-separated. `http-status`: the HTTP status that fits the envelope instead of 200. `return=representation`: the new version as an object (its number, lateness, place and estimated wait in the queue) instead of the message. Each applied is named in `Preference-Applied`.',
      examples: ['return=representation', 'http-status, return=representation'],
    }),
  ),
});

/** Whom a submission is for, when staff submit for a student. */
export const submittedFor = () => z.optional(text(256, { description: 'Instructors and full access graders: submit for this student.' }));

/** The Host a platform or browser reached the API at, and the scheme a proxy in front says it used: the LTI tool's own URLs are built on them. */
export const baseUrlHeaders = () => ({
  Host: z.optional(text(300, { description: 'The host the API was reached at: the tool URLs in the answer are built on it.' })),
  'X-Forwarded-Proto': z.optional(text(10, { description: 'The scheme the API was reached with, as a proxy in front of it says.' })),
});
