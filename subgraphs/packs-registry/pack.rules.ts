// Input rules of the packs registry shared by both doors: pack ids, semantic versions, filters and
// page sizes, each refused as an InputError naming the domain field.
import semver from 'semver';
import { InputError } from '../../platform/errors/domain-errors';
import { textCursor } from '../../platform/pagination/cursor';
import { unstorableText } from '../../platform/text';
import { PACK_KINDS, PACK_STATUSES, type PackKind, type PackStatus } from './pack.types';

export const PACK_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
export const MAX_PACK_ID = 200;
export const MAX_VERSION = 64;
export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

export function checkPackId(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw InputError.of([field], 'Field required', 'missing');
  if (value.length > MAX_PACK_ID)
    throw InputError.of([field], `String should have at most ${MAX_PACK_ID} characters`, 'string_too_long');
  if (!PACK_ID_PATTERN.test(value))
    throw InputError.of([field], `String should match pattern '${PACK_ID_PATTERN.source}'`, 'string_pattern_mismatch');
  return value;
}

/** Exactly a semantic version (no leading `v`, no ranges): versions are compared, never guessed. */
export function checkVersion(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw InputError.of([field], 'Field required', 'missing');
  if (value.length > MAX_VERSION || unstorableText(value) || semver.valid(value) !== value) {
    throw InputError.of([field], 'Input should be a semantic version such as 1.2.0', 'semver');
  }
  return value;
}

export function checkKind(value: unknown): PackKind | undefined {
  if (value === undefined || value === null) return undefined;
  if (!PACK_KINDS.includes(value as PackKind))
    throw InputError.of(['kind'], `Input should be ${PACK_KINDS.map((k) => `'${k}'`).join(' or ')}`, 'enum');
  return value as PackKind;
}

export function checkStatus(value: unknown): PackStatus | undefined {
  if (value === undefined || value === null) return undefined;
  if (!PACK_STATUSES.includes(value as PackStatus))
    throw InputError.of(['status'], `Input should be ${PACK_STATUSES.map((s) => `'${s}'`).join(' or ')}`, 'enum');
  return value as PackStatus;
}

export function checkPageSize(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_PAGE;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_PAGE) {
    throw InputError.of(['first'], `Input should be between 1 and ${MAX_PAGE}`, 'value_error');
  }
  return value as number;
}

/** Page cursors: the (pack_id, version) of the last entry of the previous page. */
const positionCursor = textCursor('pack');

export function encodePosition(packId: string, version: string): string {
  return positionCursor.encode(`${packId} ${version}`);
}

export function decodePosition(cursor: string, field: string): { packId: string; version: string } {
  const text = positionCursor.decode(cursor, field);
  const [packId, version, ...rest] = text.split(' ');
  // Pack ids and versions hold no spaces: anything else is not a cursor this module made.
  if (rest.length > 0 || !packId || !version || !PACK_ID_PATTERN.test(packId) || semver.valid(version) !== version) {
    throw InputError.of([field], 'Invalid cursor', 'value_error');
  }
  return { packId, version };
}
