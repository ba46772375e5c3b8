/**
 * A checkout problem the student can act on; its message completes "Could not check out the
 * repository: …".
 */
export class CheckoutError extends Error {
  override name = 'CheckoutError';
}
