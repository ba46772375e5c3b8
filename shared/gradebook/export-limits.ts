/**
 * The bounds of a gradebook export, apart from exports.ts so that the route's definition (which
 * the OpenAPI function bundles) carries no data access.
 */

/** Gradeables one export may name. */
export const MAX_EXPORT_GRADEABLES = 100;

/** How long an export's download link works. */
export const EXPORT_URL_SECONDS = 15 * 60;
