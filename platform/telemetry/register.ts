// Imported FIRST by the process entry points (launcher/start-all.ts, start-one.ts): starts the
// tracing SDK before any instrumented library is required, when the environment asks for it
// (telemetry.config.ts). Importing it is the whole API.
import { loadTelemetryConfig } from './telemetry.config';
import { startTracing } from './tracing';

const role = process.argv[1]?.endsWith('start-one.js') ? (process.argv[2] ?? 'platform') : 'platform';
const tracing = startTracing(loadTelemetryConfig(process.env), { serviceName: role });
if (tracing) {
  // Spans still buffered at a graceful stop are exported before the process exits.
  process.once('beforeExit', () => void tracing.shutdown());
}
