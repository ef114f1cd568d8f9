import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import { GatewayError } from '../errors/gateway-error';
import { packagePath } from '../paths';

/** Where `npm run build` (and `npm install`) puts the dashboard (dashboard/vite.config.ts). */
export const DEFAULT_DASHBOARD_DIRECTORY = packagePath('dashboard', 'dist');

/**
 * The dashboard talks only to this origin's API and loads nothing from elsewhere (no CDN, no
 * font service): the policy says so, and forbids framing (clickjacking the key buttons).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(response: Response): void {
  response.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
  response.setHeader('x-content-type-options', 'nosniff');
  response.setHeader('x-frame-options', 'DENY');
  response.setHeader('referrer-policy', 'no-referrer');
}

/**
 * GET /dashboard/…: the built files; any other path without a file extension is a page of
 * the single-page app and gets index.html (client-side routes such as /dashboard/accounts).
 * A missing asset falls through to the 404 envelope. Without a build, 503 saying how to make one.
 */
export function dashboardFiles(directory: string = DEFAULT_DASHBOARD_DIRECTORY) {
  const indexFile = path.join(directory, 'index.html');
  const files = express.static(directory, {
    index: false,
    redirect: false,
    setHeaders: (response, file) => {
      // Vite puts content hashes in the names under assets/: they never change.
      const immutable = path.relative(directory, file).startsWith(`assets${path.sep}`);
      response.setHeader('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });

  return function dashboardFilesMiddleware(request: Request, response: Response, next: NextFunction): void {
    if (request.method !== 'GET' && request.method !== 'HEAD') return next();
    // Checked per request, so a build made while the server runs is picked up.
    if (!existsSync(indexFile)) {
      return next(
        new GatewayError(
          503,
          'server_error',
          'dashboard_not_built',
          'The dashboard is not built: run `npm run build` (npm install also builds it).',
        ),
      );
    }
    securityHeaders(response);
    files(request, response, (error?: unknown) => {
      if (error) return next(error);
      if (path.extname(request.path) !== '') return next();
      response.setHeader('cache-control', 'no-cache');
      response.sendFile(indexFile, (sendError?: Error) => {
        if (sendError) next(sendError);
      });
    });
  };
}
