// What an event contract is: a bus topic, the version of its payload, the payload's schema (one
// TypeBox schema gives both the TypeScript type and the runtime check), who produces it and what
// it means. Every topic that crosses a process boundary is declared once, in this folder
// (`*.events.ts`), and listed in events.catalogue.ts; producers and consumers import it from here,
// so the two sides cannot drift (issue 24, item 3).
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';

export interface EventContract<T extends string = string, S extends TSchema = TSchema> {
  /** The bus topic (the NATS subject after the namespace prefix). */
  readonly topic: T;
  /** The payload's version: a change a consumer could trip on is a new version (docs/contracts.md). */
  readonly version: number;
  readonly schema: S;
  /** The service that publishes it. */
  readonly producer: string;
  /** The services known to consume it (informational: the bus has no registry of its own yet). */
  readonly consumers: readonly string[];
  readonly description: string;
  /**
   * How the payload's schema may evolve, as the schema registry checks it (its subject
   * `events.<topic>`); BACKWARD when absent: a consumer on the new version still reads the old events.
   */
  readonly compatibility?: 'BACKWARD' | 'FORWARD' | 'FULL' | 'NONE';
}

/** The payload type of a contract. */
export type PayloadOf<C> = C extends EventContract<string, infer S> ? Static<S> : never;

/** Declares a contract; `const` keeps the topic a literal type. */
export function eventContract<const T extends string, S extends TSchema>(
  contract: EventContract<T, S>,
): EventContract<T, S> {
  return Object.freeze({ ...contract, consumers: Object.freeze([...contract.consumers]) });
}

const checks = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** The compiled checker of a contract's schema (compiled once per schema). */
export function checkerOf<S extends TSchema>(contract: EventContract<string, S>): TypeCheck<S> {
  let check = checks.get(contract.schema);
  if (!check) checks.set(contract.schema, (check = TypeCompiler.Compile(contract.schema)));
  return check as TypeCheck<S>;
}

export interface PayloadIssue {
  path: string;
  message: string;
}

/**
 * The payload typed by its contract, or the reasons it is not. The issues name paths and rules
 * only, never the offending values: they are logged, and a payload may carry personal data.
 */
export function parsePayload<C extends EventContract>(
  contract: C,
  payload: unknown,
): { ok: true; value: PayloadOf<C> } | { ok: false; issues: PayloadIssue[] } {
  const check = checkerOf(contract);
  if (check.Check(payload)) return { ok: true, value: payload as PayloadOf<C> };
  const issues: PayloadIssue[] = [];
  for (const e of check.Errors(payload)) {
    issues.push({ path: e.path || '/', message: e.message });
    if (issues.length >= 5) break;
  }
  return { ok: false, issues };
}
