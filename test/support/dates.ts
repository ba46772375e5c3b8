const DAY_MS = 24 * 60 * 60 * 1000;

/** An instant `days` from now, to the whole second (as gradeable dates are kept), in ISO 8601. */
export const daysFromNow = (days: number) => new Date(Math.floor((Date.now() + days * DAY_MS) / 1000) * 1000).toISOString();

/**
 * A gradeable's dates while it is open for submission: opened `openedDaysAgo` days ago (one by
 * default; TAs see it a day before), due in five days, released in eight.
 */
export const openDates = (openedDaysAgo = 1) => ({
  ta_view_start_date: daysFromNow(-openedDaysAgo - 1),
  submission_open_date: daysFromNow(-openedDaysAgo),
  submission_due_date: daysFromNow(5),
  team_lock_date: daysFromNow(5),
  grade_start_date: daysFromNow(6),
  grade_due_date: daysFromNow(7),
  grade_released_date: daysFromNow(8),
  grade_inquiry_start_date: daysFromNow(8),
  grade_inquiry_due_date: daysFromNow(9),
});
