// A reader of the Prometheus text exposition format (0.0.4), enough for what /metrics serves:
// `name{label="value",...} value [timestamp]` lines, `#` comments skipped. The alert evaluator
// uses it on scraped services; prom-client writes the format but has no reader.
import type { MetricSample } from './metric-source';

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

/** The samples of a scrape body; malformed lines are skipped (one bad line must not hide the rest). */
export function parsePrometheusText(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const sample = parseLine(line);
    if (sample) samples.push(sample);
  }
  return samples;
}

function parseLine(line: string): MetricSample | undefined {
  const name = NAME.exec(line)?.[0];
  if (!name) return undefined;
  let i = name.length;
  const labels: Record<string, string> = {};
  if (line[i] === '{') {
    i++;
    while (i < line.length && line[i] !== '}') {
      const key = NAME.exec(line.slice(i))?.[0];
      if (!key || line[i + key.length] !== '=' || line[i + key.length + 1] !== '"') return undefined;
      i += key.length + 2;
      let value = '';
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && i + 1 < line.length) {
          const next = line[i + 1];
          value += next === 'n' ? '\n' : next;
          i += 2;
        } else value += line[i++];
      }
      if (line[i] !== '"') return undefined;
      labels[key] = value;
      i++;
      if (line[i] === ',') i++;
    }
    if (line[i] !== '}') return undefined;
    i++;
  }
  const [valueText] = line.slice(i).trim().split(/\s+/);
  const value = parseValue(valueText ?? '');
  return value === undefined ? undefined : { name, labels, value };
}

function parseValue(text: string): number | undefined {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  const n = Number(text);
  return text !== '' && !Number.isNaN(n) ? n : undefined;
}
