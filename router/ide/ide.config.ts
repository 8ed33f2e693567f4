// GRAPHQL_IDE: whether GET /graphql from a browser serves the offline GraphiQL page. On by default
// outside production, off in production unless set; parsed once at start like every setting.
import { readBool } from '../../platform/config/env';
import type { Env } from '../../platform/service';

export function graphqlIdeEnabled(env: Env, production: boolean): boolean {
  return readBool(env, 'GRAPHQL_IDE', !production);
}
