// An iterative walk over a pack before anything recursive (Ajv, canonicalize, the compiler) sees
// it: nesting deeper than the compiler could ever accept, values JSON cannot carry (functions,
// undefined, Infinity), and packs obviously over the byte limit are refused here without
// recursion, so a hostile pack cannot overflow the stack or hold the compiler for long. A cycle
// is refused as too deep; a value shared by reference (a pack built in code) is counted each time
// it appears, as its JSON text would be, so the byte bound also ends a walk over a large DAG.
import type { RulePackIssue } from './rule-pack.error';

/** JSON nesting levels a pack of condition depth `maxDepth` needs, with room for operand values. */
export function maxJsonDepth(maxDepth: number): number {
  // root > rules > rule (3) ; each condition level adds an object and a conditions array (2);
  // an operand value may add two more (an `in` list, or a literal object refused later).
  return 3 + 2 * maxDepth + 2;
}

export function prescanPack(pack: unknown, maxDepth: number, maxBytes: number): RulePackIssue | undefined {
  const stack: { value: unknown; depth: number; path: (string | number)[] }[] = [{ value: pack, depth: 1, path: [] }];
  // A lower bound of the canonical JSON's UTF-8 size: every code unit is at least one byte, every
  // value at least one (its comma or bracket).
  let bytes = 0;
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    bytes += 1;
    if (typeof value === 'string') bytes += value.length + 2;
    else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return { path, message: 'numbers must be finite', type: 'json_value' };
      bytes += 1;
    } else if (typeof value === 'object' && value !== null) {
      if (depth > maxJsonDepth(maxDepth))
        return { path, message: `nesting is deeper than ${maxJsonDepth(maxDepth)} levels`, type: 'depth_limit' };
      const proto = Object.getPrototypeOf(value) as unknown;
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--)
          stack.push({ value: value[i], depth: depth + 1, path: [...path, i] });
      } else if (proto === Object.prototype || proto === null) {
        for (const key of Object.keys(value)) {
          bytes += key.length + 3;
          stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, path: [...path, key] });
        }
      } else {
        return { path, message: 'only JSON values are allowed', type: 'json_value' };
      }
    } else if (typeof value !== 'boolean' && value !== null) {
      return { path, message: 'only JSON values are allowed', type: 'json_value' };
    }
    if (bytes > maxBytes)
      return { path: [], message: `the pack is larger than ${maxBytes} bytes`, type: 'pack_too_large' };
  }
  return undefined;
}
