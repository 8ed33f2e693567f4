// The zero-latency vendor stand-in (test/support/vendors) on a worker thread of its own, so the
// broker's main-thread CPU per request and its event loop carry the broker's work only: a real
// vendor is another machine. The same file is the worker's entry point.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { startVendor } from '../test/support/vendors/vendor-stand-in';

interface VendorThreadData {
  flavour: 'openai' | 'anthropic';
  reply: string;
}

export interface VendorThread {
  url: string;
  close(): Promise<void>;
}

export async function startVendorThread(flavour: VendorThreadData['flavour'], reply: string): Promise<VendorThread> {
  const worker = new Worker(__filename, { workerData: { flavour, reply } satisfies VendorThreadData });
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('message', (m: { url: string }) => resolve(m.url));
    worker.once('error', reject);
  });
  return {
    url,
    async close() {
      await worker.terminate();
    },
  };
}

if (!isMainThread && (workerData as Partial<VendorThreadData> | undefined)?.flavour) {
  const data = workerData as VendorThreadData;
  void startVendor(data.flavour).then((vendor) => {
    vendor.reply = () => data.reply;
    parentPort!.postMessage({ url: vendor.url });
  });
}
