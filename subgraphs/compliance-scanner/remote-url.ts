// A remote repository target's URL, checked before anything is fetched: `https://host/path.git`,
// optionally `#<ref>` (a branch or tag; absent, the remote's default branch), the npm convention
// for git URLs, so a target needs no column beyond its path. Only URLs under the operator's
// allowlist (SCANNER_ALLOWED_REMOTES: URL prefixes such as `https://github.com/acme/`, or host
// names, `*.suffix` allowed; empty: every remote is refused) are taken, never with credentials or
// a query (a token in a target would land in the database, findings and logs), and never to a
// private, loopback or reserved address, unless the operator allows loopback (tests and
// on-premise mirrors: SCANNER_REMOTE_ALLOW_LOOPBACK), the only case where plain http is accepted.
// The address is checked again in the clone's own DNS lookup (remote-clone.ts).
import ipaddr from 'ipaddr.js';
import { InputError } from '../../platform/errors/domain-errors';

export interface RemotePolicy {
  /** URL prefixes (`https://host/org/`) or host names (`host`, `*.suffix`). */
  allowedRemotes: readonly string[];
  /** Loopback addresses (and plain http to them) allowed: tests, on-premise mirrors. */
  remoteAllowLoopback: boolean;
}

export interface RemoteRepository {
  /** The URL cloned: no credentials, no query, no fragment. */
  url: string;
  /** The branch or tag cloned; null: the remote's default branch. */
  ref: string | null;
}

const REF = /^(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/;

const refuse = (msg: string) => InputError.of(['repositoryPath'], msg, 'value_error.url');

/** True when a target's path names a remote repository rather than a local directory. */
export const isRemotePath = (p: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(p);

/** True for an address a clone may reach: public unicast, or loopback when the operator allows it. */
export function addressAllowed(address: string, policy: Pick<RemotePolicy, 'remoteAllowLoopback'>): boolean {
  if (!ipaddr.isValid(address)) return false;
  const range = ipaddr.process(address).range();
  return range === 'unicast' || (policy.remoteAllowLoopback && range === 'loopback');
}

function onAllowlist(url: URL, allowed: readonly string[]): boolean {
  const host = url.hostname.toLowerCase();
  const where = `${url.protocol}//${url.host}${url.pathname}`.toLowerCase();
  return allowed.some((raw) => {
    const rule = raw.toLowerCase();
    if (rule.includes('://')) {
      // A prefix ends at a path boundary: `https://h/acme` does not admit `https://h/acme-evil/x`.
      const prefix = rule.endsWith('/') ? rule : `${rule}/`;
      return where === rule || where.startsWith(prefix);
    }
    return rule.startsWith('*.') ? host.endsWith(rule.slice(1)) : host === rule;
  });
}

/** The remote a target names, refused (422 at repositoryPath) unless the operator allows it. */
export function checkRemote(raw: string, policy: RemotePolicy): RemoteRepository {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('The repository URL is not a URL');
  }
  if (url.username || url.password)
    throw refuse('A repository URL carries no credentials (they would be stored and shown with the target)');
  if (url.search) throw refuse('A repository URL takes no query');
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  const isLiteral = ipaddr.isValid(literal);
  const loopbackLiteral = isLiteral && ipaddr.process(literal).range() === 'loopback';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.remoteAllowLoopback && loopbackLiteral))
    throw refuse('Only https repository URLs are cloned');
  if (policy.allowedRemotes.length === 0)
    throw refuse('No remote repository is allowed on this scanner (SCANNER_ALLOWED_REMOTES is empty)');
  if (!onAllowlist(url, policy.allowedRemotes))
    throw refuse(`The repository URL is outside the remotes this scanner may clone (SCANNER_ALLOWED_REMOTES)`);
  if (isLiteral && !addressAllowed(literal, policy))
    throw refuse(
      `The address ${literal} is private or reserved; remote repositories are cloned from public addresses only`,
    );
  let ref: string | null = null;
  if (url.hash) {
    ref = decodeURIComponent(url.hash.slice(1));
    if (!REF.test(ref) || ref.endsWith('.lock') || ref.endsWith('/'))
      throw refuse('The ref after # must be a branch or tag name');
  }
  url.hash = '';
  return { url: url.toString(), ref };
}

/** The target's stored path for a checked remote (the URL, with `#ref` when one is chosen). */
export const remotePath = (r: RemoteRepository) => (r.ref ? `${r.url}#${r.ref}` : r.url);
