// The refresh token's cookie: httpOnly (page scripts never read it), SameSite=Strict (never sent
// from another site, so no cross-site request can refresh or sign out), Secure when the console
// is reached over https, and scoped to Path=/console/session so the browser sends it only to the
// three session routes, never to /graphql or the REST gateway.
export const SESSION_COOKIE = 'console_refresh';
export const SESSION_PATH = '/console/session';

export function sessionCookie(refreshToken: string, options: { secure: boolean; maxAgeSeconds: number }): string {
  return [
    `${SESSION_COOKIE}=${encodeURIComponent(refreshToken)}`,
    `Path=${SESSION_PATH}`,
    `Max-Age=${options.maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', { secure, maxAgeSeconds: 0 });
}

/** The refresh token from a Cookie header, if any. */
export function refreshTokenOf(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    try {
      const value = decodeURIComponent(part.slice(eq + 1).trim());
      return value === '' ? undefined : value;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
