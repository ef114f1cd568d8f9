import { existsSync } from 'node:fs';
import type { NextFunction, Request, Response } from 'express';
import { GatewayError } from '../errors/gateway-error';
import { packagePath } from '../paths';

/** Where the build puts Scalar's standalone renderer (openapi/copy-api-reference.mjs). */
export const DEFAULT_API_REFERENCE_SCRIPT = packagePath('dist', 'api-reference', 'standalone.js');
export const API_REFERENCE_SCRIPT_PATH = '/docs/api-reference.js';

/**
 * The renderer loads nothing from elsewhere: its script comes from this server, its default
 * fonts are off, and try-it requests go to this origin only (docs/client-and-openapi.md).
 * Scalar sets styles at run time, hence inline styles.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Scalar's options (data-configuration): the page reads the document the server publishes. */
const CONFIGURATION = {
  url: '/v1/openapi.json',
  withDefaultFonts: false,
  hideDownloadButton: false,
  defaultOpenAllTags: true,
};

const escapeAttribute = (text: string): string => text.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/</g, '&lt;');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Model Gateway API reference</title>
</head>
<body>
<noscript>The API reference needs JavaScript. The OpenAPI document is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
<script id="api-reference" data-url="/v1/openapi.json" data-configuration='${escapeAttribute(JSON.stringify(CONFIGURATION))}'></script>
<script src="${API_REFERENCE_SCRIPT_PATH}"></script>
</body>
</html>
`;

const notBuilt = () =>
  new GatewayError(
    503,
    'server_error',
    'docs_not_built',
    'The API reference renderer is not built: run `npm run build` (npm install also builds it).',
  );

/** GET /docs: the API reference, rendered in the browser by Scalar from /v1/openapi.json. */
export function docsPage(script: string = DEFAULT_API_REFERENCE_SCRIPT) {
  return function docsPageHandler(_request: Request, response: Response, next: NextFunction): void {
    if (!existsSync(script)) return next(notBuilt());
    response.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
    response.setHeader('x-content-type-options', 'nosniff');
    response.setHeader('cache-control', 'no-cache');
    response.type('text/html; charset=utf-8').send(PAGE);
  };
}

/** GET /docs/api-reference.js: Scalar's standalone bundle, copied at build time. */
export function apiReferenceScript(script: string = DEFAULT_API_REFERENCE_SCRIPT) {
  return function apiReferenceScriptHandler(_request: Request, response: Response, next: NextFunction): void {
    if (!existsSync(script)) return next(notBuilt());
    response.setHeader('x-content-type-options', 'nosniff');
    response.setHeader('cache-control', 'public, max-age=3600');
    response.type('text/javascript; charset=utf-8').sendFile(script, (error?: Error) => {
      if (error && !response.headersSent) next(error);
    });
  };
}
