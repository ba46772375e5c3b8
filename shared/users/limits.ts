/**
 * The account rules' numbers and names, apart from the rules so that the HTTP contract (bundled by
 * every function, and by the OpenAPI function) shows them without bundling the rules' data.
 */
import type { AccessLevel } from '#shared/data/users.ts';

/** The shortest password a person may choose. */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_NAME_LENGTH = 100;
export const MAX_EMAIL_LENGTH = 254;
/** Audit entries per page when `page_size` is left out. */
export const AUDIT_PAGE = 100;
/** The levels as requests name them. */
export const LEVEL_NAMES = ['user', 'faculty', 'superuser'] as const satisfies readonly AccessLevel[];
