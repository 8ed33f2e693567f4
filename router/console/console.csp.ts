// The console's Content-Security-Policy and the headers every console response carries.
// Everything comes from this origin: no CDN, no font host, no inline script (Vite emits the
// entry as an external module). connect-src 'self' covers graphql-ws on the same origin too:
// CSP Level 3 matches ws:/wss: of the page's own host against 'self', so no scheme-wide `ws:`
// (which would let a script talk to any WebSocket host) is needed.
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The policy when the console signs in through the OIDC provider: the page talks to the
 * provider's origin too (discovery, token, revocation; the provider answers them with CORS for
 * the console's origin), and to nothing else. The sign-in itself is a navigation, which
 * connect-src does not govern.
 */
export function consoleCsp(providerOrigin?: string): string {
  if (!providerOrigin) return CONSOLE_CSP;
  return CONSOLE_CSP.replace("connect-src 'self'", `connect-src 'self' ${providerOrigin.replace(/[;,\s]/g, '')}`);
}

export function consoleHeaders(providerOrigin?: string): Readonly<Record<string, string>> {
  return { ...CONSOLE_HEADERS, 'content-security-policy': consoleCsp(providerOrigin) };
}

export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};
