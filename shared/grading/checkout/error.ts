/**
 * A checkout problem the student can act on; its message completes "Could not check out the
 * repository: …".
 */
export class CheckoutError extends Error {
  override name = 'CheckoutError';
}

/**
 * The commit a version was first graded on is no longer reachable from any branch or tag of its
 * repository (a force-push, a deleted branch): that version cannot be graded again, and nothing
 * newer is graded in its place.
 */
export class UnreachableCommitError extends CheckoutError {
  override name = 'UnreachableCommitError';
  readonly commit: string;
  constructor(commit: string) {
    super(
      `commit ${commit}, which this version was first graded on, is no longer in the repository ` +
        '(was its branch force-pushed or deleted?). This version cannot be graded again; submitting again grades the repository as it is now.',
    );
    this.commit = commit;
  }
}

/** A full commit id (SHA-1, lower-case hex), as versions record them. */
export const isCommitId = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{40}$/.test(value);
