// Which redirect URIs a client may register: https anywhere, http only on loopback: the name
// `localhost` or the literals 127.0.0.1 and [::1] (RFC 8252 §7.3 native apps, §8.3), no fragment (RFC 6749 §3.1.2), no userinfo (an
// `https://good.example@evil.example/` trick). The provider then matches them exactly, so a
// registered `https://app.example/cb` does not admit `https://app.example/cb/../evil` or
// `https://app.example/cb.evil.example`.
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function redirectUriProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.href !== raw && url.href !== `${raw}/`) return 'must be written in its normal form';
  if (url.hash || raw.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not carry user information';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return undefined;
  return 'must use https (or http on localhost, 127.0.0.1 or [::1])';
}
