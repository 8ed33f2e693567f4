// The GraphQL IDE page's bootstrap (router/ide): renders GraphiQL against the endpoint this page
// was served from. Everything it uses was loaded from the router itself (React, ReactDOM,
// graphql-ws and GraphiQL as globals); nothing comes from the internet.
//
// Queries and mutations are POSTed to this page's own URL with the headers of GraphiQL's header
// editor. Subscriptions go over graphql-ws to the same URL (ws: or wss: as the page), and since
// a browser cannot set headers on a WebSocket, the connection's connectionParams carry the
// editor's `Authorization` (and `X-Tenant-ID`, if set): the router authenticates the socket from
// them. Changing either header opens a new socket for the next subscription.
(function () {
  'use strict';

  // The page's CSP allows <style> elements only with this response's nonce: GraphiQL's dialogs
  // (react-remove-scroll) add one and read the nonce from this global.
  var nonce = document.currentScript && document.currentScript.nonce;
  if (nonce) window.__webpack_nonce__ = nonce;

  var endpoint = window.location.pathname;
  var socketUrl = (window.location.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + window.location.host + endpoint;

  function header(headers, name) {
    for (var key in headers) {
      if (key.toLowerCase() === name && typeof headers[key] === 'string' && headers[key].trim() !== '')
        return headers[key];
    }
    return undefined;
  }

  // A refused or failed subscription becomes a result GraphiQL shows (the close code and the
  // router's reason, e.g. 4401 without a valid token; or the operation's GraphQL errors) rather
  // than an error its fetcher would also leave unhandled.
  function showingErrors(client) {
    return {
      subscribe: function (payload, sink) {
        return client.subscribe(payload, {
          next: function (value) {
            sink.next(value);
          },
          complete: function () {
            sink.complete();
          },
          error: function (err) {
            var errors = Array.isArray(err)
              ? err
              : typeof (err && err.code) === 'number'
                ? [{ message: 'Socket closed with event ' + err.code + (err.reason ? ': ' + err.reason : '') }]
                : [{ message: String((err && err.message) || err) }];
            sink.next({ errors: errors });
            sink.complete();
          },
        });
      },
    };
  }

  var current = { key: undefined, client: undefined, fetcher: undefined };

  // One GraphiQL fetcher per (Authorization, X-Tenant-ID): its graphql-ws client is lazy, so the
  // socket opens with the first subscription and closes when the headers change.
  function fetcherFor(headers) {
    var params = {};
    var authorization = header(headers, 'authorization');
    var tenant = header(headers, 'x-tenant-id');
    if (authorization) params.authorization = authorization;
    if (tenant) params['x-tenant-id'] = tenant;
    var key = JSON.stringify(params);
    if (current.key !== key) {
      if (current.client) current.client.dispose();
      var client = window.graphqlWs.createClient({
        url: socketUrl,
        connectionParams: params,
        lazy: true,
        retryAttempts: 0,
      });
      current = {
        key: key,
        client: client,
        // The gateway answers neither @defer nor @stream: plain JSON over HTTP.
        fetcher: window.GraphiQL.createFetcher({
          url: endpoint,
          wsClient: showingErrors(client),
          enableIncrementalDelivery: false,
        }),
      };
    }
    return current.fetcher;
  }

  function fetcher(params, options) {
    return fetcherFor((options && options.headers) || {})(params, options);
  }

  // GET /graphql?query=...&variables=...&operationName=... from a browser opens that operation.
  var search = new URLSearchParams(window.location.search);

  var defaultQuery = [
    '# GraphQL IDE (GraphiQL, served by the router:',
    '# nothing here loads from the internet).',
    '#',
    '# 1. Log in, no token needed:',
    '#    mutation {',
    '#      login(username: "...", password: "...") { accessToken }',
    '#    }',
    '# 2. Paste the token under Headers below:',
    '#    { "Authorization": "Bearer <accessToken>" }',
    '#',
    '# Queries and mutations send the headers over HTTP;',
    '# subscriptions send Authorization (and X-Tenant-ID)',
    '# in the graphql-ws connectionParams. Headers stay in',
    '# this tab: they are never saved in the browser.',
    '',
    '{ me { username tenantId roles scopes } }',
    '',
  ].join('\n');

  var props = {
    fetcher: fetcher,
    defaultQuery: defaultQuery,
    defaultEditorToolsVisibility: 'headers',
    shouldPersistHeaders: false,
  };
  if (search.get('query')) props.query = search.get('query');
  if (search.get('variables')) props.variables = search.get('variables');
  if (search.get('operationName')) props.operationName = search.get('operationName');

  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, props));
})();
