// Evaluates one JSONata expression per record in a worker thread (jsonata.transform.ts). The
// expression is compiled once, when the thread starts; each message is a batch of records and
// is answered with their results, in order. The parent gives the thread a heap limit and
// terminates it when a batch passes its deadline, so an expression that loops or allocates
// without bound ends the thread, never the service.
import { parentPort, workerData } from 'node:worker_threads';
import jsonata from 'jsonata';

const failure = (err) => ({ ok: false, error: String((err && err.message) || err), position: err && err.position });

let compiled = null;
let compileError = null;
try {
  compiled = jsonata(workerData.expression);
} catch (err) {
  compileError = failure(err);
}

parentPort.on('message', async (records) => {
  if (compileError) return parentPort.postMessage(compileError);
  try {
    const out = [];
    for (const record of records) out.push(await compiled.evaluate(record));
    parentPort.postMessage({ ok: true, out });
  } catch (err) {
    parentPort.postMessage(failure(err));
  }
});
