/**
 * The shapes of the ids the API names things by, declared once: the domain checks ids with them,
 * and the route definitions (functions/<name>/definition.ts) show them as the patterns of its parameters and
 * fields. Nothing here reads anything.
 */

/** Term and course codes: lowercase letters, digits and underscores, as in the reference. */
export const CODE = /^[a-z0-9_]{1,64}$/;

/** User ids: 1–64 characters of letters, digits and `._@+-`, starting with a letter or digit. */
export const USER_ID = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/;

/**
 * The audit trail's actor for the operator's command line. It has a space and parentheses, which
 * no user id may hold, so no account (one named `admin`, say) can pass for the operator in a trail.
 */
export const COMMAND_LINE_ACTOR = '(command line)';

/** Gradeable ids: 1–64 letters, digits, `_` and `-`. */
export const GRADEABLE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Webhook ids: `wh_` and 16 base64url characters. */
export const WEBHOOK_ID = /^wh_[A-Za-z0-9_-]{16}$/;

/** LTI registration ids: `lti_`, then 22 base64url digits naming the platform's issuer and client id (shared/lti/registration.ts). */
export const LTI_REGISTRATION_ID = /^lti_[A-Za-z0-9_-]{22}$/;

/** Delivery (message) ids: `msg_`, the time as 9 base-36 digits, then 12 random ones. */
export const DELIVERY_ID = /^msg_[0-9a-z]{21}$/;

/**
 * LMS score delivery ids: `ls_` and base64url of what names the delivery (its gradeable, student
 * and linked LMS course, whose context id may be 255 characters): shared/data/lti-scores.ts.
 */
export const LTI_SCORE_DELIVERY_ID = /^ls_[A-Za-z0-9_-]{1,2800}$/;

/** Regrade ids: `rg_` and 22 base64url characters (128 random bits). */
export const REGRADE_ID = /^rg_[A-Za-z0-9_-]{22}$/;

/** Summaries job ids: `sj_` and 22 base64url characters (128 random bits). */
export const SUMMARIES_JOB_ID = /^sj_[A-Za-z0-9_-]{22}$/;

/** Gradebook export ids: `ge_` and 22 base64url characters (128 random bits). */
export const GRADEBOOK_EXPORT_ID = /^ge_[A-Za-z0-9_-]{22}$/;

/** Similarity run ids: `sr_` and 22 base64url characters (128 random bits). */
export const SIMILARITY_RUN_ID = /^sr_[A-Za-z0-9_-]{22}$/;

/** A pair of a similarity run: its rank in the run, from 1. */
export const SIMILARITY_PAIR_ID = /^[1-9]\d{0,3}$/;

/** Grade inquiry ids: `iq_`, the time in milliseconds as 9 base-36 digits (so they sort by time), then 12 random ones. */
export const INQUIRY_ID = /^iq_[0-9a-z]{21}$/;

/** An Idempotency-Key header: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * A gradeable of a course, as a path names it (a malformed id names a gradeable that does not
 * exist). Stored items name it by its `gradeableKey` (`term/course/gradeableId`,
 * shared/data/submissions.ts), and a submission by its SubmissionKey (that and the owner).
 */
export interface CourseGradeable {
  readonly term: string;
  readonly course: string;
  readonly gradeableId: string;
}

export const isValidCode = (code: string): boolean => CODE.test(code);
export const isValidUserId = (userId: string): boolean => USER_ID.test(userId);
export const isValidGradeableId = (id: string): boolean => GRADEABLE_ID.test(id);
export const isWebhookId = (value: string): boolean => WEBHOOK_ID.test(value);
export const isDeliveryId = (value: string): boolean => DELIVERY_ID.test(value);
export const isRegradeId = (value: string): boolean => REGRADE_ID.test(value);
export const isSummariesJobId = (value: string): boolean => SUMMARIES_JOB_ID.test(value);
export const isGradebookExportId = (value: string): boolean => GRADEBOOK_EXPORT_ID.test(value);
export const isSimilarityRunId = (value: string): boolean => SIMILARITY_RUN_ID.test(value);
export const isInquiryId = (value: string): boolean => INQUIRY_ID.test(value);
export const isValidIdempotencyKey = (key: string): boolean => IDEMPOTENCY_KEY.test(key);

/** Team ids: 1–64 letters, digits, `_` and `-` (as the admin command line has always made them). */
export const TEAM_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const isValidTeamId = (id: string): boolean => TEAM_ID.test(id);
