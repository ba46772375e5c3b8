/** The key of a course in every table that holds per-course items: `<term>/<course>`. */
export const courseId = (term: string, course: string): string => `${term}/${course}`;
