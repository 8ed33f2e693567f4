// Types of `imurmurhash` (MurmurHash3, 32-bit), the hash flagd-core's `fractional` uses; the
// package ships none.
declare module 'imurmurhash' {
  class MurmurHash3 {
    constructor(key?: string, seed?: number);
    hash(key: string): this;
    result(): number;
    reset(seed?: number): this;
  }
  export = MurmurHash3;
}
