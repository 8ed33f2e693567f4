// JSON logs (pino, through Fastify). Secrets never reach a log line: request headers are not
// serialised at all, and the usual secret-bearing fields are redacted wherever they appear.
import pino, { type Logger, type LoggerOptions } from 'pino';
import type { LogLevel } from '../config/platform.config';
import { traceLogFields } from '../telemetry/log-trace';

const PINO_LEVEL: Record<LogLevel, string> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARNING: 'warn',
  ERROR: 'error',
  CRITICAL: 'fatal',
};

export const REDACT_PATHS = [
  'password',
  '*.password',
  'access_token',
  '*.access_token',
  'refresh_token',
  '*.refresh_token',
  'client_secret',
  '*.client_secret',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'token',
  '*.token',
];

export function loggerOptions(level: LogLevel, service: string): LoggerOptions {
  return {
    level: PINO_LEVEL[level],
    base: { service },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // trace_id / span_id of the active span, when tracing is on (platform/telemetry/log-trace.ts).
    mixin: traceLogFields,
    serializers: {
      // Method and path only: query strings may carry tenant ids but never tokens; headers not at all.
      req: (req: { method?: string; url?: string; id?: string }) => ({
        method: req.method,
        path: req.url?.split('?')[0],
        correlationId: req.id,
      }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    },
  };
}

export function createLogger(level: LogLevel, service: string): Logger {
  return pino(loggerOptions(level, service));
}

export type { Logger };
