/** Late-day counts (budgets, grants, extensions) are whole numbers up to this. */
export const MAX_LATE_DAYS = 1000;
