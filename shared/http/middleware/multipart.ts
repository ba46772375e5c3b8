/**
 * The multipart body parser (@middy's, with busboy). Loaded by the first multipart body only: in a
 * deployed function it is a companion file beside the bundle (see body.ts), so the functions'
 * cold start neither reads nor parses it.
 */
import httpMultipartBodyParser from '@middy/http-multipart-body-parser';
import type { Request } from '@middy/core';

export const multipartParser = httpMultipartBodyParser({
  disableContentTypeCheck: true,
  // preservePath: a file name arrives as sent (`../evil.sh`, not `evil.sh`), for the route to refuse or keep.
  busboy: { preservePath: true, limits: { fields: 200, files: 200, parts: 200, fieldSize: 1024 * 1024 } },
}).before as (request: Request) => unknown;
