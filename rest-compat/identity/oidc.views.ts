// The sign-in pages of the OIDC provider: minimal server-rendered HTML, no script. Every value is
// escaped; forms post back to the interaction (its uid is bound to the provider's interaction cookie).
import type { InteractionOutcome } from '../../subgraphs/identity/oidc/oidc-interaction.service';
import { escapeHtml as e } from '../../subgraphs/identity/oidc/oidc.provider';

type View = Exclude<InteractionOutcome, { redirect: string }>;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${e(title)}</title>
<meta name="viewport" content="width=device-width"></head><body><main><h1>${e(title)}</h1>${body}</main></body></html>`;
}

const errorOf = (v: { error?: string }) => (v.error ? `<p role="alert">${e(v.error)}</p>` : '');

export function renderInteraction(base: string, v: View): string {
  const action = `${base}/interaction/${encodeURIComponent(v.uid)}`;
  switch (v.view) {
    case 'login':
      return page(
        `Sign in to ${v.clientName}`,
        `${errorOf(v)}<form method="post" action="${e(action)}/login">
<label>Username <input name="username" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button></form>`,
      );
    case 'mfa':
      return page(
        'Second factor',
        `${errorOf(v)}<form method="post" action="${e(action)}/mfa">
<input type="hidden" name="mfa_token" value="${e(v.mfaToken)}">
<label>Code <input name="code" autocomplete="one-time-code" inputmode="numeric" required></label>
<label><input type="radio" name="method" value="totp" checked> Authenticator app</label>
<label><input type="radio" name="method" value="recovery_code"> Recovery code</label>
<button type="submit">Continue</button></form>`,
      );
    case 'enrol_required':
      return page(
        'Second factor required',
        '<p>Your role needs a second factor and you have none yet. Sign in to the console once to enrol an authenticator, then try again.</p>',
      );
    case 'consent':
      return page(
        `${v.clientName} asks for access`,
        `<p>It asks for: ${v.scopes.map((s) => `<code>${e(s)}</code>`).join(', ') || 'your identity'}.</p>
<form method="post" action="${e(action)}/consent">
<button name="decision" value="allow" type="submit">Allow</button>
<button name="decision" value="deny" type="submit">Deny</button></form>`,
      );
  }
}
