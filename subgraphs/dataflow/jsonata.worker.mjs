// Evaluates one JSONata expression per record in a worker thread (jsonata.transform.ts). The
// expression is compiled once, when the thread starts: by jsonata, and, when every node is in
// its subset, into synchronous closures (jsonata.fast.mjs) that answer most records without
// jsonata's asynchronous evaluator; a record they cannot answer exactly as jsonata would is
// evaluated by jsonata. Each message is a batch of records and is answered with their results,
// in order, and how many took the fast path. The parent gives the thread a heap limit and
// terminates it when a batch passes its deadline, so an expression that loops or allocates
// without bound ends the thread, never the service.
import { parentPort, workerData } from 'node:worker_threads';
import jsonata from 'jsonata';
import { compileFast, loadBuiltins } from './jsonata.fast.mjs';

const failure = (err) => ({ ok: false, error: String((err && err.message) || err), position: err && err.position });

let compiled = null;
let compileError = null;
try {
  compiled = jsonata(workerData.expression);
} catch (err) {
  compileError = failure(err);
}
// `fast: false` in workerData turns the fast path off (the tests' reference).
const fast =
  compiled && workerData.fast !== false ? loadBuiltins().then((fns) => compileFast(compiled.ast(), fns)) : null;

parentPort.on('message', async (records) => {
  if (compileError) return parentPort.postMessage(compileError);
  try {
    const quick = await fast;
    const out = new Array(records.length);
    let fastCount = 0;
    for (let i = 0; i < records.length; i++) {
      if (quick) {
        try {
          out[i] = quick(records[i]);
          fastCount++;
          continue;
        } catch {
          // Outside the fast path's cases (or an error jsonata must report): jsonata decides.
        }
      }
      out[i] = await compiled.evaluate(records[i]);
    }
    parentPort.postMessage({ ok: true, out, fast: fastCount });
  } catch (err) {
    parentPort.postMessage(failure(err));
  }
});
