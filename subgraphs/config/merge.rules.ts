// How layers combine (docs/config.md, "Merge rules"): a later layer's object merges into the
// earlier one key by key; any other value (a list, a string, a number) replaces what was there;
// an explicit null removes the key. Provenance follows the same walk: a leaf (or a list, which
// replaces as a whole) is credited to the layer that last wrote it, and a removal drops the
// credit of everything under the removed key.

export type JsonObject = Record<string, unknown>;

/** Who wrote a layer: what provenance records for every key it sets. */
export interface LayerSource<S> {
  content: JsonObject;
  source: S;
}

export interface Merged<S> {
  value: JsonObject;
  /** JSON pointer (relative to the merged object) → the source that set it. */
  setBy: Map<string, S>;
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 6901 escaping of one reference token. */
export const pointerToken = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function dropUnder<S>(setBy: Map<string, S>, pointer: string): void {
  for (const key of [...setBy.keys()]) if (key === pointer || key.startsWith(`${pointer}/`)) setBy.delete(key);
}

function mergeInto<S>(target: JsonObject, patch: JsonObject, source: S, at: string, setBy: Map<string, S>): void {
  for (const [key, value] of Object.entries(patch)) {
    const pointer = `${at}/${pointerToken(key)}`;
    if (value === null) {
      delete target[key];
      dropUnder(setBy, pointer);
    } else if (isObject(value)) {
      if (!isObject(target[key])) {
        dropUnder(setBy, pointer);
        target[key] = {};
      }
      mergeInto(target[key] as JsonObject, value, source, pointer, setBy);
    } else {
      dropUnder(setBy, pointer);
      // Lists and scalars replace; a list is copied so later layers never alias a bundle's content.
      target[key] = Array.isArray(value) ? structuredClone(value) : value;
      setBy.set(pointer, source);
    }
  }
}

/** Merges the layers in order (first is the base: platform, then suite, module, tenant). */
export function mergeLayers<S>(layers: readonly LayerSource<S>[]): Merged<S> {
  const value: JsonObject = {};
  const setBy = new Map<string, S>();
  for (const layer of layers) mergeInto(value, layer.content, layer.source, '', setBy);
  return { value, setBy };
}
