// The hierarchy's rules (spec 02 rules 1 and 7): which levels a scope reaches, the context-priority
// boost, the checks on levels and scope ids, and who sees which access level.
import type { Caller } from '../../platform/auth/caller';
import { InputError, type InputIssue } from '../../platform/errors/domain-errors';
import { ACCESS_LEVELS, LEVELS, type AccessLevel, type Level, type Scope } from './rag.types';

const SCOPE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,99}$/;

/**
 * Cascading scope: the levels the given ids define, and the broader ones. An entity id reaches
 * entity, module and suite (where those ids are given too) and platform; a module id reaches
 * module (and suite with a suite id) and platform; a suite id, suite and platform; no id, platform.
 */
export function cascadeLevels(scope: Scope): Level[] {
  const levels: Level[] = [];
  if (scope.entityId !== undefined) levels.push('entity');
  if (scope.moduleId !== undefined) levels.push('module');
  if (scope.suiteId !== undefined) levels.push('suite');
  levels.push('platform');
  return levels;
}

/**
 * Context-priority boost (spec 02 rule 7): added to a chunk's cosine similarity, so of two
 * passages about as relevant the more specific comes first, while a clearly better platform
 * passage still outranks a weak entity one.
 */
export const LEVEL_BOOST: Record<Level, number> = { entity: 0.06, module: 0.04, suite: 0.02, platform: 0 };

export function boosted(similarity: number, level: Level): number {
  return Math.max(0, Math.min(1, similarity + LEVEL_BOOST[level]));
}

/** Checks scope ids (1-100 characters, letters, digits and _ . : @ -); issues name the fields. */
export function scopeIssues(
  scope: Record<string, unknown>,
  names: Record<keyof Scope, string> = { suiteId: 'suiteId', moduleId: 'moduleId', entityId: 'entityId' },
): InputIssue[] {
  const issues: InputIssue[] = [];
  for (const key of ['suiteId', 'moduleId', 'entityId'] as const) {
    const v = scope[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' || !SCOPE_ID.test(v))
      issues.push({
        loc: [names[key]],
        msg: 'Should be 1-100 characters: letters, digits and _ . : @ -',
        type: 'value_error',
      });
  }
  return issues;
}

export function normaliseScope(scope: {
  suiteId?: string | null;
  moduleId?: string | null;
  entityId?: string | null;
}): Scope {
  const out: Scope = {};
  if (scope.suiteId) out.suiteId = scope.suiteId;
  if (scope.moduleId) out.moduleId = scope.moduleId;
  if (scope.entityId) out.entityId = scope.entityId;
  return out;
}

export function parseLevel(value: unknown): Level {
  if (typeof value !== 'string' || !(LEVELS as readonly string[]).includes(value))
    throw InputError.of(['level'], `Input should be ${LEVELS.map((l) => `'${l}'`).join(', ')}`, 'enum');
  return value as Level;
}

export function parseAccessLevel(value: unknown): AccessLevel {
  if (value === undefined || value === null || value === '') return 'internal';
  if (typeof value !== 'string' || !(ACCESS_LEVELS as readonly string[]).includes(value))
    throw InputError.of(['accessLevel'], `Input should be ${ACCESS_LEVELS.map((l) => `'${l}'`).join(', ')}`, 'enum');
  return value as AccessLevel;
}

/** A document at a level needs the ids that place it there. */
export function placementIssues(level: Level, scope: Scope): InputIssue[] {
  const need: (keyof Scope)[] =
    level === 'suite' ? ['suiteId'] : level === 'module' ? ['moduleId'] : level === 'entity' ? ['entityId'] : [];
  return need
    .filter((k) => scope[k] === undefined)
    .map((k) => ({ loc: [k], msg: `Field required for a document at the ${level} level`, type: 'missing' }));
}

/**
 * Access levels a caller may read (docs/rag.md): tenant members and the trusted network behind
 * the gateway read all three; a token whose roles are only `external` reads external and public;
 * only `guest`, public.
 */
export function readableAccessLevels(caller: Caller): readonly AccessLevel[] {
  const roles = caller.auth?.roles;
  if (!roles || roles.length === 0) return ACCESS_LEVELS;
  if (roles.every((r) => r === 'guest')) return ['public'];
  if (roles.every((r) => r === 'external' || r === 'guest')) return ['external', 'public'];
  return ACCESS_LEVELS;
}
