import { describeRunningFunction, setting } from '#shared/environment.ts';

/**
 * The DynamoDB tables: one definition used by the CDK stack and by the local server.
 * All keys are strings. Deployed functions get each table's name from its environment variable.
 */
export interface TableDefinition {
  /** Logical name: the CDK construct id and the local table name. */
  readonly id: string;
  readonly environmentVariable: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
  /** Attribute holding an epoch-seconds expiry that DynamoDB TTL deletes by. */
  readonly timeToLiveAttribute?: string;
  /** Global secondary indexes (keys are strings). */
  readonly globalIndexes?: readonly GlobalIndex[];
}

export interface GlobalIndex {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
  /**
   * The attributes besides the keys that the index keeps; every attribute when absent. A write that
   * changes none of them (nor the keys) costs the index nothing.
   */
  readonly attributes?: readonly string[];
}

export const tables = {
  /** User profiles: names, e-mail, system access level. No secrets. */
  users: { id: 'Users', environmentVariable: 'USERS_TABLE', partitionKey: 'userId' },
  /** The one valid token of each user. Read by every authenticated function. */
  sessions: {
    id: 'Sessions',
    environmentVariable: 'SESSIONS_TABLE',
    partitionKey: 'userId',
    timeToLiveAttribute: 'expiresAt',
  },
  /** Password hashes and failed-login counters; read only by the token functions. */
  credentials: {
    id: 'Credentials',
    environmentVariable: 'CREDENTIALS_TABLE',
    partitionKey: 'userId',
    sortKey: 'kind',
    timeToLiveAttribute: 'expiresAt',
  },
  /** Terms: code, display name, start and end dates. */
  terms: { id: 'Terms', environmentVariable: 'TERMS_TABLE', partitionKey: 'termId' },
  /** Courses, keyed by term and course code. */
  courses: { id: 'Courses', environmentVariable: 'COURSES_TABLE', partitionKey: 'term', sortKey: 'course' },
  /**
   * Who is in which course, in which group and section; `byUser` lists a user's courses,
   * `bySection` a course's students with a section in the gradebook's order (`sectionOrder`, see
   * enrollments.ts), so a page of the gradebook reads that page's students only.
   */
  enrollments: {
    id: 'Enrollments',
    environmentVariable: 'ENROLLMENTS_TABLE',
    partitionKey: 'courseId',
    sortKey: 'userId',
    globalIndexes: [
      { name: 'byUser', partitionKey: 'userId', sortKey: 'courseId' },
      { name: 'bySection', partitionKey: 'courseId', sortKey: 'sectionOrder', attributes: ['registrationSection'] },
    ],
  },
  /**
   * Access groups: which courses share one (`course#<courseId>`) and which users are staff in any
   * of them (`staff#<userId>#<courseId>`), so staff of one course may read its siblings.
   */
  accessGroups: {
    id: 'AccessGroups',
    environmentVariable: 'ACCESS_GROUPS_TABLE',
    partitionKey: 'accessGroup',
    sortKey: 'member',
  },
  /** Gradeables of each course: the canonical gradeable JSON (dates as UTC instants). */
  gradeables: {
    id: 'Gradeables',
    environmentVariable: 'GRADEABLES_TABLE',
    partitionKey: 'courseId',
    sortKey: 'gradeableId',
  },
  /**
   * One item per (course gradeable, owner): highest and active version, a summary of every
   * version, and the active version's results, so `values` and `attempts` are one read.
   * `byStudent` lists a student's own submissions in a course (`studentKey`, see submissions.ts).
   */
  submissions: {
    id: 'Submissions',
    environmentVariable: 'SUBMISSIONS_TABLE',
    partitionKey: 'gradeableKey',
    sortKey: 'ownerId',
    globalIndexes: [
      { name: 'byStudent', partitionKey: 'studentKey', sortKey: 'gradeableId', attributes: ['activeVersion', 'activeDaysLate'] },
    ],
  },
  /**
   * Teams of team gradeables: `team#<teamId>` lists the members, `member#<userId>` names a member's
   * team and carries a copy of the team submission's active version; `byStudent` lists a student's
   * member entries in a course (see teams.ts).
   */
  teams: {
    id: 'Teams',
    environmentVariable: 'TEAMS_TABLE',
    partitionKey: 'gradeableKey',
    sortKey: 'entry',
    globalIndexes: [
      { name: 'byStudent', partitionKey: 'studentKey', sortKey: 'gradeableId', attributes: ['activeVersion', 'activeDaysLate'] },
    ],
  },
  /** Full grading results of every version. */
  results: {
    id: 'Results',
    environmentVariable: 'RESULTS_TABLE',
    partitionKey: 'submissionKey',
    sortKey: 'version',
  },
  /**
   * Grading jobs keyed by their ticket number, and the queue's shards `queue#<n>`, each holding
   * the last sequence number it issued (`tail`) and the last claimed (`head`; see jobs.ts).
   * `byLease` lists jobs being graded by lease expiry. Each course's submissions per minute are
   * counted on the shards themselves (`burst#…` attributes); items by `expiresAt` expire.
   */
  jobs: {
    id: 'Jobs',
    environmentVariable: 'JOBS_TABLE',
    partitionKey: 'job',
    timeToLiveAttribute: 'expiresAt',
    globalIndexes: [{ name: 'byLease', partitionKey: 'leaseState', sortKey: 'leaseExpiresAt' }],
  },
  /**
   * Grade summaries, one per user and generation (`<generation>#<userId>`); the course names the
   * current generation. Beside them, in partitions of their own, the course jobs (summaries jobs,
   * gradebook exports): `byUnfinished` lists those not finished, by kind and creation time, and
   * only them (the attribute `unfinished` exists from a job's creation to the write that ends it),
   * so the sweep never reads a summary.
   */
  summaries: {
    id: 'Summaries',
    environmentVariable: 'SUMMARIES_TABLE',
    partitionKey: 'courseId',
    sortKey: 'entry',
    globalIndexes: [
      {
        name: 'byUnfinished',
        partitionKey: 'unfinished',
        sortKey: 'createdAt',
        attributes: ['term', 'course', 'state', 'leaseUntil', 'attempts', 'resends', 'resentAt'],
      },
    ],
  },
  /**
   * The audit trail of TA grading: every change of a (gradeable, owner)'s TA grade
   * (`<gradeableKey>#<ownerId>`), by revision: who, when, which component, before and after.
   */
  gradeAudit: {
    id: 'GradeAudit',
    environmentVariable: 'GRADE_AUDIT_TABLE',
    partitionKey: 'gradeKey',
    sortKey: 'revision',
  },
  /**
   * The audit trail of administration (audit.ts): every change to a course's roster, teams,
   * gradeables and settings (`course#<courseId>`), and to a user's account (`user#<userId>`), by
   * time: who, when, what, before and after. Written in the same transaction as the change.
   */
  audit: {
    id: 'Audit',
    environmentVariable: 'AUDIT_TABLE',
    partitionKey: 'scope',
    sortKey: 'entry',
  },
  /**
   * Answers to requests sent with an Idempotency-Key, kept for 24 hours; and each presigned upload
   * consumed by a version (keyed on its storage key, idempotency.ts), kept a week.
   */
  idempotency: {
    id: 'Idempotency',
    environmentVariable: 'IDEMPOTENCY_TABLE',
    partitionKey: 'key',
    timeToLiveAttribute: 'expiresAt',
  },
  /** Webhooks of each course: url, events, description (no secret). */
  webhooks: {
    id: 'Webhooks',
    environmentVariable: 'WEBHOOKS_TABLE',
    partitionKey: 'courseId',
    sortKey: 'webhookId',
  },
  /**
   * The signing secret of each webhook (`<courseId>#<webhookId>`), apart from the webhooks so that
   * only registration, removal and delivery may read or write secrets.
   */
  webhookSecrets: {
    id: 'WebhookSecrets',
    environmentVariable: 'WEBHOOK_SECRETS_TABLE',
    partitionKey: 'webhookKey',
  },
  /** Deliveries of each webhook (`<courseId>#<webhookId>`) by message id (time-ordered): payload, state, attempts; kept 30 days. */
  webhookDeliveries: {
    id: 'WebhookDeliveries',
    environmentVariable: 'WEBHOOK_DELIVERIES_TABLE',
    partitionKey: 'webhookKey',
    sortKey: 'deliveryId',
    timeToLiveAttribute: 'expiresAt',
  },
  /**
   * The webhook outbox: each webhook queue message (an event, a replay's attempt) written in the same
   * transaction as what caused it, by its id, until it is on the webhook queue (webhook-outbox.ts).
   * No expiry: an entry leaves only once the queue took its message.
   */
  webhookOutbox: {
    id: 'WebhookOutbox',
    environmentVariable: 'WEBHOOK_OUTBOX_TABLE',
    partitionKey: 'messageId',
  },
  /**
   * Grade inquiries of each course (inquiries.ts): `inquiry#<inquiryId>` (time-ordered) holds one
   * inquiry with its posts; `open#<gradeableId>#<ownerId>#<slot>` exists while an inquiry is open
   * about that grade (a component, or the whole grade), so only one is.
   */
  inquiries: {
    id: 'Inquiries',
    environmentVariable: 'INQUIRIES_TABLE',
    partitionKey: 'courseId',
    sortKey: 'entry',
  },
  /**
   * Late days of each student of a course: the budget grants (`grants`, allowed days by
   * the instant they start) and the extensions on single gradeables (`extensions`, by gradeable
   * id). Apart from the enrollments, which a class-list import rewrites.
   */
  /**
   * LTI 1.3 (shared/data/lti.ts): the platforms registered (`registrations`, one entry per
   * registration id), and, as the launch flow adds them, the short-lived states, nonces and
   * launch codes and the binding of a platform's users and contexts; items by `expiresAt` expire.
   */
  lti: {
    id: 'Lti',
    environmentVariable: 'LTI_TABLE',
    partitionKey: 'key',
    sortKey: 'entry',
    timeToLiveAttribute: 'expiresAt',
  },
  lateDays: {
    id: 'LateDays',
    environmentVariable: 'LATE_DAYS_TABLE',
    partitionKey: 'courseId',
    sortKey: 'userId',
  },
} as const satisfies Record<string, TableDefinition>;

export const allTables: readonly TableDefinition[] = Object.values(tables);

/**
 * The table's name from the running function's environment. There is no default: a function
 * whose environment lacks the table was not granted it, and that is an error worth naming.
 */
export function tableName(table: TableDefinition): string {
  const name = setting(table.environmentVariable);
  if (name) return name;
  throw new Error(
    `The ${table.id} table is not in the environment of ${describeRunningFunction()}: ${table.environmentVariable} is not set. ` +
      'Declare what the function does with the table in its definition (functions/<name>/definition.ts).',
  );
}
