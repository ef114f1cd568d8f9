import type { CookieOptions, Response } from 'express';
import { SESSION_COOKIE_NAME, SESSION_COOKIE_PATH } from '../../contract';

/**
 * The session cookie: HttpOnly (scripts cannot read it), SameSite=Strict (never sent on a
 * cross-site request), scoped to /v1/admin (model routes never see it), Secure when the
 * request came over HTTPS (behind a proxy: with `server.trust_proxy` set).
 */
function cookieOptions(secure: boolean): CookieOptions {
  return { httpOnly: true, sameSite: 'strict', path: SESSION_COOKIE_PATH, secure };
}

export function setSessionCookie(response: Response, token: string, expiresAt: Date, secure: boolean): void {
  response.cookie(SESSION_COOKIE_NAME, token, { ...cookieOptions(secure), expires: expiresAt });
}

export function clearSessionCookie(response: Response, secure: boolean): void {
  response.clearCookie(SESSION_COOKIE_NAME, cookieOptions(secure));
}

/** The session token from a Cookie header, or null. No cookie-parser: one cookie is all we read. */
export function readSessionCookie(header: string | undefined): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() === SESSION_COOKIE_NAME) {
      const value = part.slice(separator + 1).trim();
      return value.length > 0 ? value : null;
    }
  }
  return null;
}
