// A strict fake: only the methods a test provides exist; any other call fails the test, so unit
// tests notice unexpected queries.
export function strictFake<T extends object>(impl: Partial<T>, name = 'fake'): T {
  return new Proxy(impl as T, {
    get(target, prop, receiver) {
      if (prop in target) return Reflect.get(target, prop, receiver);
      if (prop === 'then' || typeof prop === 'symbol') return undefined;
      return () => {
        throw new Error(`unexpected call: ${name}.${String(prop)}`);
      };
    },
  });
}
