// The GraphiQL page's HTML and its Content-Security-Policy. Every URL in the page is relative to
// it (`graphql-ide/<hash>/<file>` next to /graphql), so it loads only from the router that served
// it, also behind a proxy that mounts the router under a path. No script runs inline: the
// bootstrap is a file of its own, and the per-response nonce only lets GraphiQL's dialogs add
// their one <style> element (see static/ide.js).
import type { IdeAssets } from './ide.assets';

export const ASSET_PREFIX = 'graphql-ide';

type Available = Extract<IdeAssets, { available: true }>;

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

export function ideHtml(assets: Available, nonce: string): string {
  const url = (name: keyof Available['byName']) => escapeAttribute(`${ASSET_PREFIX}/${assets.byName[name].path}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>GraphQL IDE</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${url('graphiql-css')}">
<link rel="stylesheet" href="${url('ide-css')}">
</head>
<body>
<div id="graphiql"><noscript>The GraphQL IDE needs JavaScript. The API itself answers POST requests at this URL.</noscript></div>
<script src="${url('react')}"></script>
<script src="${url('react-dom')}"></script>
<script src="${url('graphql-ws')}"></script>
<script src="${url('graphiql-js')}"></script>
<script src="${url('ide-js')}" nonce="${escapeAttribute(nonce)}"></script>
</body>
</html>
`;
}

/** A Host header that can go into a CSP source expression as it is. */
const PLAIN_HOST = /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

/**
 * Scripts only from the router; styles from the router plus the nonce; data: fonts and images
 * (GraphiQL's stylesheet inlines its fonts); requests only back to the router, over HTTP and
 * graphql-ws (CSP 3 browsers count same-host ws/wss as 'self'; older ones need them named).
 */
export function ideContentSecurityPolicy(nonce: string, host: string | undefined): string {
  const sockets = host && PLAIN_HOST.test(host) ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self'${sockets}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

export function ideUnavailableHtml(missing: readonly string[]): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>GraphQL IDE unavailable</title></head>
<body>
<h1>GraphQL IDE unavailable</h1>
<p>The GraphQL IDE is served from the router's development dependencies (${missing.map((m) => `<code>${escapeAttribute(m)}</code>`).join(', ')}), which this installation does not have (installed with <code>--omit=dev</code>).
Install them, or set <code>GRAPHQL_IDE=false</code> to turn the IDE off.</p>
<p>The GraphQL API at this URL works as usual: POST operations to it.</p>
</body>
</html>
`;
}
