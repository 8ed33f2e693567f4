// The telemetry compose profile's Prometheus scrapes every service of the registry on its port,
// both replicas, as deploy/compose.yaml names them; the Collector sends the platform's receiver JSON.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SERVICES } from '../../../launcher/registry';
import { PROJECT_ROOT } from '../../../platform/project-root';

const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, 'deploy/telemetry', file), 'utf8');

it('prometheus.yml scrapes /metrics of both replicas of every service', () => {
  const config = parse(read('prometheus.yml')) as {
    scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
  };
  const jobs = new Map(config.scrape_configs.map((j) => [j.job_name, j.static_configs.flatMap((s) => s.targets)]));
  for (const s of SERVICES) expect(jobs.get(s.name)).toEqual([`${s.name}-1:${s.port}`, `${s.name}-2:${s.port}`]);
  expect(jobs.size).toBe(SERVICES.length);
});

it('the Collector exports traces to Jaeger and, as OTLP JSON, to the observability service', () => {
  const config = parse(read('otel-collector.yaml')) as {
    exporters: Record<string, { encoding?: string; traces_endpoint?: string }>;
    service: { pipelines: { traces: { exporters: string[] } } };
  };
  expect(config.service.pipelines.traces.exporters).toEqual(['otlp/jaeger', 'otlphttp/platform']);
  expect(config.exporters['otlphttp/platform']).toMatchObject({
    encoding: 'json',
    traces_endpoint: 'http://balancer:8096/v1/traces',
  });
  const compose = parse(read('compose.telemetry.yaml')) as { services: Record<string, { profiles: string[] }> };
  for (const s of Object.values(compose.services)) expect(s.profiles).toEqual(['telemetry']);
});
