// CONSOLE_ENABLED: whether the router serves the reviewer console at /console. On outside
// production, off in production unless set (as GRAPHQL_IDE); CONSOLE_DIR names the built files
// (`npm run build` writes dist/console). Parsed once at start like every setting.
import path from 'node:path';
import { readBool, readString } from '../../platform/config/env';
import { PROJECT_ROOT } from '../../platform/project-root';
import type { Env } from '../../platform/service';

export interface ConsoleConfig {
  enabled: boolean;
  /** The folder holding index.html and assets/ (Vite's output). */
  dir: string;
}

export function loadConsoleConfig(env: Env, production: boolean): ConsoleConfig {
  return {
    enabled: readBool(env, 'CONSOLE_ENABLED', !production),
    dir: path.resolve(PROJECT_ROOT, readString(env, 'CONSOLE_DIR', 'dist/console')),
  };
}
