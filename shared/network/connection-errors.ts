/**
 * What a failed connection to an outside server (a webhook receiver, an LMS) is told as, in a
 * delivery's record or a page: the cause in words, never more than 200 characters. TLS and socket
 * errors name no secret: the request's headers and body are this service's own.
 */
export function describeConnectionError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
      return 'the connection was reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host could not be reached';
    default:
      return (error.message || String(error)).slice(0, 200);
  }
}
