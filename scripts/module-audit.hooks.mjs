// Loader hooks of scripts/module-audit.cjs (they run on Node's hooks thread): every module the ES
// module loader resolves, with who asked for it, appended as a JSON line to the trace file.
// (A file, not a MessagePort: a port handed to register() from a --require preload ends the
// process at start on Node 20; nor process.env, which that thread got before the preload ran.)
import fs from 'node:fs';

let trace;

export function initialize(data) {
  trace = data.trace;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (trace)
    fs.appendFileSync(trace, `${JSON.stringify({ specifier, parentURL: context.parentURL, url: resolved.url })}\n`);
  return resolved;
}
