// @authenticated and @requiresScopes as composed into the supergraph (Federation 2.5+). Apollo's
// gateway does not enforce them (measured: see DESIGN.md), so the router reads them from the
// supergraph SDL and checks each operation before it runs (operation-guard.ts).
import { Kind, parse, type ConstDirectiveNode, type ConstValueNode } from 'graphql';

export interface AccessRule {
  authenticated: boolean;
  /** Alternatives (OR) of scope sets (AND), as @requiresScopes(scopes: [[...]]) says. */
  scopes?: string[][];
}

export interface AuthRules {
  /** Keyed by type name. */
  types: Map<string, AccessRule>;
  /** Keyed by `Type.field`. */
  fields: Map<string, AccessRule>;
}

export function authRulesFromSupergraph(sdl: string): AuthRules {
  const rules: AuthRules = { types: new Map(), fields: new Map() };
  const names = directiveNames(sdl);
  for (const def of parse(sdl).definitions) {
    if (!('name' in def) || !def.name || !('directives' in def)) continue;
    const typeRule = ruleOf(def.directives as readonly ConstDirectiveNode[] | undefined, names);
    if (typeRule) rules.types.set(def.name.value, typeRule);
    if ('fields' in def && def.fields) {
      for (const field of def.fields) {
        const fieldRule = ruleOf(field.directives, names);
        if (fieldRule) rules.fields.set(`${def.name.value}.${field.name.value}`, fieldRule);
      }
    }
  }
  return rules;
}

/** The local names of the two directives, honouring `@link(url: ..., as: ...)` renames. */
function directiveNames(sdl: string): { authenticated: string; requiresScopes: string } {
  const names = { authenticated: 'authenticated', requiresScopes: 'requiresScopes' };
  for (const match of sdl.matchAll(
    /@link\(url:\s*"https:\/\/specs\.apollo\.dev\/(authenticated|requiresScopes)\/v[\d.]+"(?:,\s*as:\s*"(\w+)")?/g,
  )) {
    if (match[2]) names[match[1] as keyof typeof names] = match[2];
  }
  return names;
}

function ruleOf(
  directives: readonly ConstDirectiveNode[] | undefined,
  names: { authenticated: string; requiresScopes: string },
): AccessRule | undefined {
  let rule: AccessRule | undefined;
  for (const d of directives ?? []) {
    if (d.name.value === names.authenticated) rule = { ...rule, authenticated: true };
    if (d.name.value === names.requiresScopes) {
      const arg = d.arguments?.find((a) => a.name.value === 'scopes');
      rule = { ...rule, authenticated: true, scopes: arg ? scopeSets(arg.value) : [] };
    }
  }
  return rule;
}

function scopeSets(value: ConstValueNode): string[][] {
  if (value.kind !== Kind.LIST) return [];
  return value.values.map((inner) =>
    inner.kind === Kind.LIST ? inner.values.flatMap((v) => (v.kind === Kind.STRING ? [v.value] : [])) : [],
  );
}
