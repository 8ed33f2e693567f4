// autocannon `setupRequest` of bench/router.ts's honest load, loaded by path in autocannon's
// worker thread (functions cannot be handed to a worker). The plan (query, caller tokens, data
// size, where to start) is a JSON file named by ROUTER_BENCH_PLAN, written by bench/router.ts
// before each load (a worker copies the environment when it starts).
//
// Request n of a load goes to caller n mod T (T tokens over many tenants) with variables drawn
// from j = floor(n / T): first = 5 + j mod 11 and after = the cursor of seq floor(j / 11) mod
// (events - 15). No (caller, variables) pair repeats within T * 11 * (events - 15) requests (1.5
// million with the default seed), and the requests in flight at one moment (consecutive n) all
// come from different callers, so neither in-flight deduplication (same caller, same subgraph
// request) nor the response cache (same caller, same subgraph request within max-age) can fold
// two client requests into one subgraph call.
import fs from 'node:fs';

interface HonestPlan {
  query: string;
  tokens: string[];
  eventsPerTenant: number;
  /** The first n of this load: each load starts where no earlier load went. */
  start: number;
}

let plan: HonestPlan | undefined;
let n = 0;

/** The variables of request n (also used by bench/router.ts's sanity checks). */
function variablesOf(
  n: number,
  tokens: number,
  eventsPerTenant: number,
): { token: number; first: number; after: string | null } {
  const j = Math.floor(n / tokens);
  const afterSeq = Math.floor(j / 11) % (eventsPerTenant - 15);
  return {
    token: n % tokens,
    first: 5 + (j % 11),
    after: afterSeq === 0 ? null : Buffer.from(`seq:${afterSeq}`).toString('base64url'),
  };
}

function setupRequest(request: { headers?: Record<string, string>; body?: string }): typeof request {
  if (!plan) {
    plan = JSON.parse(fs.readFileSync(process.env.ROUTER_BENCH_PLAN!, 'utf8')) as HonestPlan;
    n = plan.start;
  }
  const v = variablesOf(n++, plan.tokens.length, plan.eventsPerTenant);
  request.headers = {
    ...request.headers,
    authorization: `Bearer ${plan.tokens[v.token]}`,
    'content-type': 'application/json',
  };
  request.body = JSON.stringify({ query: plan.query, variables: { first: v.first, after: v.after } });
  return request;
}

// autocannon calls what require() returns, so the module is the function itself.
export = Object.assign(setupRequest, { variablesOf });
