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

export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};
