/**
 * Who was refused a course route lately, in this function instance. Their next request to the same
 * route and course does not start the route's `alongside` read: a course-wide Query whose result a
 * refused caller never sees, which a student could otherwise make the service run again and again
 * (OWASP API4, unrestricted resource consumption). It decides nothing: the token check still runs
 * in full, and a caller allowed since (given a role meanwhile) gets the read after the check, one
 * round trip later.
 */
export interface RefusalMemory {
  remember(key: string): void;
  recently(key: string): boolean;
  forget(key: string): void;
}

export const REFUSAL_MEMORY_MS = 5 * 60_000;
const MAX_REMEMBERED = 10_000;

export function refusalMemory(now: () => number = Date.now): RefusalMemory {
  const until = new Map<string, number>();
  return {
    remember(key) {
      // A bound on memory, not on anyone's access: forgetting only costs reads.
      if (until.size >= MAX_REMEMBERED) until.clear();
      until.set(key, now() + REFUSAL_MEMORY_MS);
    },
    recently(key) {
      const end = until.get(key);
      if (end === undefined) return false;
      if (end > now()) return true;
      until.delete(key);
      return false;
    },
    forget(key) {
      until.delete(key);
    },
  };
}

/** The key of a caller's requests to one route of one course. */
export const refusalKey = (routeKey: string, course: { semester: string; course: string }, userId: string): string =>
  `${routeKey}\n${course.semester}/${course.course}\n${userId}`;
