// The REST gateway's route table (spec 01, gateway endpoints), derived from the service registry:
// each service's manifest declares the /api/v1 routes that reach it (platform/service.ts), so a
// new service brings its routes with it.
import type { Scope } from '../../platform/auth/auth-context';
import type { GatewayRoute, ServiceManifest } from '../../platform/service';

export interface ProxyRoute extends GatewayRoute {
  /** The service the route reaches. */
  backend: string;
}

export function proxyRoutesOf(registry: readonly ServiceManifest[]): ProxyRoute[] {
  return registry.flatMap((s) => (s.gatewayRoutes ?? []).map((r) => ({ ...r, backend: s.name })));
}

export function requiredScope(route: Pick<GatewayRoute, 'scope'>, method: string): Scope {
  return route.scope ?? (method === 'GET' || method === 'HEAD' ? 'read' : 'write');
}
