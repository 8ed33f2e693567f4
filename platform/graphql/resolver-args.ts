// Small adapters every subgraph's resolvers need between GraphQL's shapes and the domain's:
// GraphQL's `null` for an absent argument becomes `undefined`, and a lookup that finds nothing
// becomes a nullable `null` while every other error keeps its code.
import { NotFoundError } from '../errors/domain-errors';

export type Opt<T> = T | null | undefined;

/** An optional GraphQL argument as the domain takes it: absent, never null. */
export const opt = <T>(v: Opt<T>): T | undefined => v ?? undefined;

/**
 * GraphQL's enum value for a domain's lower-case word (`pending` -> `PENDING`), typed as that
 * value so the generated resolver types can check it. toUpperCase is typed as returning any string.
 */
export const upper = <S extends string>(word: S): Uppercase<S> => word.toUpperCase() as Uppercase<S>;

/** The domain's lower-case word for a GraphQL enum value (`PENDING` -> `pending`). */
export const lower = <S extends string>(value: S): Lowercase<S> => value.toLowerCase() as Lowercase<S>;

/** NOT_FOUND becomes null (a nullable lookup); every other error keeps its code. */
export async function orNull<T>(work: Promise<T> | (() => Promise<T>)): Promise<T | null> {
  try {
    return await (typeof work === 'function' ? work() : work);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}
