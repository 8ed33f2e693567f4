// The REST pull connector: fetches a pipeline's `source.url` through the guarded client and spools
// what it got. A JSON source is followed page by page, its records (the body, or
// `pagination.items_field` in it) written one per line, so the batch reads NDJSON; the next page
// is named by, in order: a `Link: <...>; rel="next"` header; `pagination.next_field` in the body
// (a URL, absolute or relative, or a cursor sent back as `pagination.cursor_param`); or, with
// `pagination.page_param`, the next page number until a page comes back empty. At most
// `pagination.max_pages` pages (1,000). A CSV or NDJSON source is one response, spooled as it is.
// The same records pulled again make the same content hash, so an unchanged source lands nothing
// twice (its completed batch is answered).
import { Readable } from 'node:stream';
import sjson from 'secure-json-parse';
import { InputError } from '../../platform/errors/domain-errors';
import { checkPullUrl, guardedGet, type PullGuard } from './guarded-http';
import type { PipelineDefinition } from './pipeline.types';
import { SourceFormatError } from './record-reader';
import { spool, type Spooled } from './spool';

const DEFAULT_MAX_PAGES = 1000;

/** `a.b.c` in a parsed JSON body. */
function at(value: unknown, dotted: string): unknown {
  let v = value;
  for (const key of dotted.split('.')) {
    if (v === null || typeof v !== 'object' || !Object.prototype.hasOwnProperty.call(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** The `rel="next"` target of a Link header (RFC 8288), if any. */
export function linkNext(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text) return undefined;
  for (const part of text.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (m && /;\s*rel="?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(m[2]!)) return m[1];
  }
  return undefined;
}

export interface PullOptions {
  guard: PullGuard;
  maxBytes: number;
  spoolDir?: string;
  /** An Authorization header from the source's username and password reference, if any. */
  authorization?: string;
}

export async function pullRest(definition: PipelineDefinition, options: PullOptions): Promise<Spooled> {
  const source = definition.source;
  if (!source.url) throw InputError.of(['definition', 'source', 'url'], 'a rest_pull source needs a url');
  const first = checkPullUrl(source.url, options.guard);
  const headers: Record<string, string> = options.authorization ? { authorization: options.authorization } : {};
  if (definition.format.type !== 'json') {
    const res = await guardedGet(first, options.guard, { maxBytes: options.maxBytes, headers });
    if (res.status !== 200) throw new SourceFormatError(`the source answered ${res.status}`);
    return spool(Readable.from([res.body]), options.maxBytes, options.spoolDir);
  }
  return spool(Readable.from(pages(first, definition, options, headers)), options.maxBytes, options.spoolDir);
}

async function* pages(
  first: URL,
  definition: PipelineDefinition,
  options: PullOptions,
  headers: Record<string, string>,
): AsyncGenerator<Buffer> {
  const p = definition.source.pagination ?? {};
  const maxPages = p.max_pages ?? DEFAULT_MAX_PAGES;
  const pageStart = p.page_start ?? 1;
  let url: URL | undefined = first;
  if (p.page_param) url.searchParams.set(p.page_param, String(pageStart));
  const seen = new Set<string>();
  for (let page = 0; url && page < maxPages; page++) {
    if (seen.has(url.toString())) throw new SourceFormatError(`pagination loops back to ${url.pathname}`);
    seen.add(url.toString());
    const res = await guardedGet(url, options.guard, { maxBytes: options.maxBytes, headers });
    if (res.status !== 200) throw new SourceFormatError(`page ${page + 1} answered ${res.status}`);
    let body: unknown;
    try {
      body = sjson.parse(res.body.toString('utf8').replace(/^\uFEFF/, ''), undefined, {
        protoAction: 'remove',
        constructorAction: 'remove',
      });
    } catch (err) {
      throw new SourceFormatError(`page ${page + 1} is not JSON: ${(err as Error).message}`);
    }
    const items = p.items_field ? at(body, p.items_field) : body;
    if (!Array.isArray(items)) {
      throw new SourceFormatError(
        `page ${page + 1}: expected an array of records${p.items_field ? ` in '${p.items_field}'` : ''}`,
      );
    }
    if (items.length > 0) yield Buffer.from(items.map((item) => JSON.stringify(item)).join('\n') + '\n', 'utf8');
    url = nextUrl(url, res.headers.link, body, items.length, p, pageStart + page);
  }
}

function nextUrl(
  current: URL,
  link: string | string[] | undefined,
  body: unknown,
  count: number,
  p: NonNullable<PipelineDefinition['source']['pagination']>,
  pageNumber: number,
): URL | undefined {
  const fromLink = linkNext(link);
  if (fromLink) return new URL(fromLink, current);
  if (p.next_field) {
    const next = at(body, p.next_field);
    if (next === undefined || next === null || next === '' || next === false) return undefined;
    const text = String(next);
    if (p.cursor_param) {
      const u = new URL(current);
      u.searchParams.set(p.cursor_param, text);
      return u;
    }
    return new URL(text, current);
  }
  if (p.page_param && count > 0) {
    const u = new URL(current);
    u.searchParams.set(p.page_param, String(pageNumber + 1));
    return u;
  }
  return undefined;
}
