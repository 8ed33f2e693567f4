// Evaluates one JSONata expression per record in a worker thread (jsonata.transform.ts): the
// parent gives the thread a heap limit and terminates it at the deadline, so an expression that
// loops or allocates without bound ends the thread, never the service.
import { parentPort, workerData } from 'node:worker_threads';
import jsonata from 'jsonata';

const { expression, records } = workerData;
try {
  const compiled = jsonata(expression);
  const out = [];
  for (const record of records) out.push(await compiled.evaluate(record));
  parentPort.postMessage({ ok: true, out });
} catch (err) {
  parentPort.postMessage({ ok: false, error: String((err && err.message) || err), position: err && err.position });
}
