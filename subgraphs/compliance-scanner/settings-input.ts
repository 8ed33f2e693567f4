// The configuration target: the platform's effective settings as a rule sees them. Settings are
// the environment's variables (every process of a deployment shares them, deploy/platform.env);
// a secret's value never reaches a rule, a finding or a table: a variable whose name says it holds
// a secret is replaced by `<NAME>_BYTES`, its length, which is all a rule needs ("a short JWT secret").
const SECRET_NAME = /(SECRET|PASSWORD|TOKEN|PRIVATE|_KEY$|_KEY_)/;
const MAX_SETTINGS = 2_000;

export type Settings = Record<string, string>;

export function isSecretSetting(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** What rules and storage see: plain values kept, secrets reduced to their byte length. */
export function effectiveSettings(env: Record<string, string | undefined>): Settings {
  const settings: Settings = {};
  for (const [name, value] of Object.entries(env).slice(0, MAX_SETTINGS)) {
    if (value === undefined || !/^[A-Z][A-Z0-9_]*$/.test(name)) continue;
    if (isSecretSetting(name)) settings[`${name}_BYTES`] = String(Buffer.byteLength(value));
    else settings[name] = value.slice(0, 2_000);
  }
  return settings;
}
