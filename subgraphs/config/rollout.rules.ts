// Who a partial rollout reaches: flagd's `fractional` bucketing, so a rollout and a flag split
// the same population the same way. flagd hashes `<flagKey><targetingKey>` with MurmurHash3
// (32-bit, seed 0) and maps the hash onto the total weight: bucket = (hash * total) >> 32. With
// the two buckets [new, percentage] and [old, 100 - percentage], a target gets the new bundle
// when bucket < percentage. The key here is the rollout's target (layer/scope/namespace), so
// each namespace splits independently, and raising the percentage only adds targets.
import MurmurHash3 from 'imurmurhash';

export function inRollout(rolloutKey: string, targetingKey: string, percentage: number): boolean {
  if (percentage >= 100) return true;
  if (percentage <= 0) return false;
  const hash = BigInt(new MurmurHash3(`${rolloutKey}${targetingKey}`).result() >>> 0);
  return Number((hash * 100n) >> 32n) < percentage;
}
