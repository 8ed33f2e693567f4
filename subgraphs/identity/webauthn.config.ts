// WebAuthn's relying party: the RP id (a registrable domain, never an IP address: browsers refuse
// one) and the exact origins whose ceremonies are accepted. The defaults fit development: the
// console served by the router at http://localhost:8080.
import { ConfigError, readInt, readString } from '../../platform/config/env';
import type { Env } from '../../platform/service';

export interface WebauthnSettings {
  /** IDENTITY_WEBAUTHN_RP_ID (default `localhost`). */
  rpId: string;
  /** The name authenticators show: IDENTITY_TOTP_ISSUER, as for authenticator apps. */
  rpName: string;
  /** IDENTITY_WEBAUTHN_ORIGINS, comma-separated (default `http://localhost:8080`). */
  origins: string[];
  /** Seconds a ceremony's challenge may be answered (IDENTITY_WEBAUTHN_CHALLENGE_SECONDS). */
  challengeSeconds: number;
}

export function loadWebauthnConfig(env: Env, rpName: string): WebauthnSettings {
  const rpId = readString(env, 'IDENTITY_WEBAUTHN_RP_ID', 'localhost').toLowerCase();
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(rpId) || /^[\d.]+$/.test(rpId))
    throw new ConfigError('IDENTITY_WEBAUTHN_RP_ID must be a domain name (not an IP address, no scheme or port)');
  const origins = readString(env, 'IDENTITY_WEBAUTHN_ORIGINS', 'http://localhost:8080')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '')
    .map((o) => originOf(o, rpId));
  return {
    rpId,
    rpName,
    origins,
    challengeSeconds: readInt(env, 'IDENTITY_WEBAUTHN_CHALLENGE_SECONDS', 300, { min: 30, max: 3600 }),
  };
}

/** An origin as browsers write it in clientDataJSON; its host must be the RP id or under it. */
function originOf(raw: string, rpId: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`IDENTITY_WEBAUTHN_ORIGINS: "${raw}" is not an origin`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && url.hostname === 'localhost'))
    throw new ConfigError(`IDENTITY_WEBAUTHN_ORIGINS: "${raw}" must be https (http only for localhost)`);
  if (url.hostname !== rpId && !url.hostname.endsWith(`.${rpId}`))
    throw new ConfigError(`IDENTITY_WEBAUTHN_ORIGINS: "${raw}" is not on the RP id ${rpId}`);
  return url.origin;
}
