// Jest environment for tests that run a real ONNX model. onnxruntime-node's native code makes its
// output tensors' typed arrays in Node's own realm, and onnxruntime-common checks them with
// `instanceof Float32Array`, which fails in the separate realm jest gives each test file. This
// environment (jest's node one otherwise) hands the test realm Node's own typed-array
// constructors. A test file opts in with the docblock `@jest-environment ./test/support/onnx-environment.js`.
const { TestEnvironment } = require('jest-environment-node');

const TYPED_ARRAYS = [
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
];

class OnnxEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of TYPED_ARRAYS) this.global[name] = globalThis[name];
  }
}

module.exports = OnnxEnvironment;
