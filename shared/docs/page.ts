import { createHash } from 'node:crypto';
import { swaggerUiLinks } from './swagger-ui.ts';

/**
 * The reference page: Swagger UI rendering `openapi.json` of this same API, with everything it
 * loads served by this API (relative URLs, so it works under any host or base path). After a
 * successful login (`POST /api/token` tried on the page) the page authorizes itself with the new
 * token, so the next "try it" call is authenticated.
 */
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: 'openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
  showExtensions: false,
  validatorUrl: null,
  responseInterceptor: function (response) {
    var body = response && response.body;
    if (response.status === 200 && /\\/api\\/token$/.test(response.url) && body && body.status === 'success' && body.data && body.data.token) {
      window.ui.preauthorizeApiKey('token', body.data.token);
    }
    return response;
  },
});`;

const scriptHash = `'sha256-${createHash('sha256').update(INIT_SCRIPT).digest('base64')}'`;

/** Nothing from elsewhere: scripts, styles, calls and images from this API only (Swagger UI styles some elements inline). */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src 'self' ${scriptHash}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function referencePage(): string {
  const swaggerUi = swaggerUiLinks();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Course Submission API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs/${swaggerUi.styles}">
</head>
<body>
<div id="reference"></div>
<script src="docs/${swaggerUi.script}"></script>
<script>${INIT_SCRIPT}</script>
</body>
</html>
`;
}
