// Child process of bench/observability.ts: the process under load. It imports the tracing
// bootstrap FIRST (as the launchers do), so with OTEL_TRACES_ENABLED=true the require-hook
// instrumentations patch http, pg, graphql... exactly as under `npm start`; with
// OTEL_SDK_DISABLED=true nothing is patched. Then identity, config, ledger and the gateway/router
// on ephemeral ports over in-memory PGlite; reports their URLs over IPC; any message stops it.
import '../platform/telemetry/register';
import type { AddressInfo } from 'node:net';
import { loadPlatformConfig } from '../platform/config/platform.config';
import { openDatabase } from '../platform/db/database';
import { createLogger } from '../platform/logging/logger';
import type { BuiltService } from '../platform/service';
import { configService } from '../services/config';
import { gatewayService } from '../services/gateway';
import { identityService } from '../services/identity';
import { ledgerService } from '../services/ledger';
import { registryOf } from '../launcher/registry';

async function main(): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  const config = loadPlatformConfig(env);
  const db = await openDatabase({ ...config.database, pgliteDir: 'memory://' });
  const defs = [identityService, configService, ledgerService, gatewayService];
  const registry = registryOf(defs);
  const built: BuiltService[] = [];
  const urls: Record<string, string> = {};
  for (const def of defs) {
    // The gateway is built last, told where the others listen.
    const own = { ...env };
    for (const [name, url] of Object.entries(urls)) own[`${name.toUpperCase().replace(/-/g, '_')}_URL`] = url;
    const b = await def.build({
      config: loadPlatformConfig(own),
      db,
      env: own,
      logger: createLogger('ERROR', def.name),
      registry,
    });
    await b.app.listen({ port: 0, host: '127.0.0.1' });
    await b.start?.();
    built.push(b);
    urls[def.name] = `http://127.0.0.1:${(b.app.server.address() as AddressInfo).port}`;
  }
  process.send!({ urls });
  process.on('message', async () => {
    for (const b of built.reverse()) {
      await b.stop?.().catch(() => undefined);
      await b.app.close().catch(() => undefined);
    }
    await db.close();
    process.exit(0);
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
