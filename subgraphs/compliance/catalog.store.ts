// The only code that reads and writes a tenant's frameworks, controls and control links. Every
// function takes the tenant id first; an import is written by `insertFramework` inside the
// caller's transaction, so a framework is either wholly there or not at all.
import type { SqlQuery } from '../../platform/db/sql';
import type { Control, ControlRef, Framework, FrameworkKind, ParsedFramework } from './compliance.types';

interface FrameworkRow {
  tenant_id: string;
  framework: string;
  kind: string;
  oscal_uuid: string;
  title: string;
  version: string;
  based_on: string | null;
  sha256: string;
  control_count: number;
  imported_by: string | null;
  imported_ms: number;
}

interface ControlRow {
  framework: string;
  control_id: string;
  title: string;
  statement: string;
  parent_id: string | null;
  maps_to: string;
}

const FRAMEWORK_COLUMNS = `tenant_id, framework, kind, oscal_uuid, title, version, based_on, sha256, control_count,
  imported_by, (extract(epoch FROM imported_at) * 1000)::float8 AS imported_ms`;
const CONTROL_COLUMNS = 'framework, control_id, title, statement, parent_id, maps_to::text AS maps_to';

function toFramework(r: FrameworkRow): Framework {
  return {
    tenantId: r.tenant_id,
    framework: r.framework,
    kind: r.kind as FrameworkKind,
    oscalUuid: r.oscal_uuid,
    title: r.title,
    version: r.version,
    basedOn: r.based_on,
    sha256: r.sha256.trim(),
    controlCount: Number(r.control_count),
    importedBy: r.imported_by,
    importedAt: new Date(Number(r.imported_ms)),
  };
}

function toControl(r: ControlRow): Control {
  const mapsTo = (JSON.parse(r.maps_to) as { framework: string; control_id: string }[]).map((m) => ({
    framework: m.framework,
    controlId: m.control_id,
  }));
  return {
    framework: r.framework,
    controlId: r.control_id,
    title: r.title,
    statement: r.statement,
    parentId: r.parent_id,
    mapsTo,
  };
}

function refsJson(refs: ControlRef[]): { framework: string; control_id: string }[] {
  return refs.map((m) => ({ framework: m.framework, control_id: m.controlId }));
}

export interface CatalogStore {
  /** False when the tenant already has a framework of that key (nothing written). */
  insertFramework(q: SqlQuery, tenantId: string, f: ParsedFramework, importedBy: string | null): Promise<boolean>;
  framework(q: SqlQuery, tenantId: string, framework: string): Promise<Framework | null>;
  frameworks(q: SqlQuery, tenantId: string): Promise<Framework[]>;
  /** A framework's controls in document order (all of them when `ids` is absent). */
  controls(q: SqlQuery, tenantId: string, framework: string, ids?: string[]): Promise<Control[]>;
  /** Which of `refs` exist in the tenant's frameworks. */
  existing(q: SqlQuery, tenantId: string, refs: ControlRef[]): Promise<ControlRef[]>;
  /** Every control of the tenant's frameworks whose id is one of `ids` (a scanner finding names ids, not frameworks). */
  controlsNamed(q: SqlQuery, tenantId: string, ids: string[]): Promise<ControlRef[]>;
}

export const catalogStore: CatalogStore = {
  async insertFramework(q, tenantId, f, importedBy) {
    const inserted = await q.query(
      `INSERT INTO compliance_frameworks
         (tenant_id, framework, kind, oscal_uuid, title, version, based_on, sha256, document, control_count, imported_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11)
       ON CONFLICT (tenant_id, framework) DO NOTHING RETURNING framework`,
      [
        tenantId,
        f.framework,
        f.kind,
        f.oscalUuid,
        f.title,
        f.version,
        f.basedOn,
        f.sha256,
        JSON.stringify(f.document),
        f.controls.length,
        importedBy,
      ],
    );
    if (inserted.rows.length === 0) return false;
    // One statement per table whatever the control count: the rows travel as one JSON array.
    const rows = f.controls.map((c, position) => ({
      control_id: c.controlId,
      title: c.title,
      statement: c.statement,
      parent_id: c.parentId,
      position,
      maps_to: refsJson(c.mapsTo),
    }));
    await q.query(
      `INSERT INTO compliance_controls (tenant_id, framework, control_id, title, statement, parent_id, position, maps_to)
       SELECT $1, $2, x.control_id, x.title, x.statement, x.parent_id, x.position, x.maps_to
       FROM jsonb_to_recordset($3::jsonb)
         AS x(control_id text, title text, statement text, parent_id text, position int, maps_to jsonb)`,
      [tenantId, f.framework, JSON.stringify(rows)],
    );
    const links = f.controls.flatMap((c) =>
      c.mapsTo.map((m) => ({ control_id: c.controlId, target_framework: m.framework, target_control_id: m.controlId })),
    );
    if (links.length > 0)
      await q.query(
        `INSERT INTO compliance_control_links (tenant_id, framework, control_id, target_framework, target_control_id)
         SELECT $1, $2, x.control_id, x.target_framework, x.target_control_id
         FROM jsonb_to_recordset($3::jsonb) AS x(control_id text, target_framework text, target_control_id text)
         ON CONFLICT DO NOTHING`,
        [tenantId, f.framework, JSON.stringify(links)],
      );
    return true;
  },

  async framework(q, tenantId, framework) {
    const { rows } = await q.query<FrameworkRow>(
      `SELECT ${FRAMEWORK_COLUMNS} FROM compliance_frameworks WHERE tenant_id = $1 AND framework = $2`,
      [tenantId, framework],
    );
    return rows[0] ? toFramework(rows[0]) : null;
  },

  async frameworks(q, tenantId) {
    const { rows } = await q.query<FrameworkRow>(
      `SELECT ${FRAMEWORK_COLUMNS} FROM compliance_frameworks WHERE tenant_id = $1 ORDER BY framework`,
      [tenantId],
    );
    return rows.map(toFramework);
  },

  async controls(q, tenantId, framework, ids) {
    const { rows } = await q.query<ControlRow>(
      `SELECT ${CONTROL_COLUMNS} FROM compliance_controls
       WHERE tenant_id = $1 AND framework = $2 AND ($3::text[] IS NULL OR control_id = ANY($3::text[]))
       ORDER BY position`,
      [tenantId, framework, ids ?? null],
    );
    return rows.map(toControl);
  },

  async existing(q, tenantId, refs) {
    if (refs.length === 0) return [];
    const { rows } = await q.query<{ framework: string; control_id: string }>(
      `SELECT c.framework, c.control_id FROM compliance_controls c
       JOIN jsonb_to_recordset($2::jsonb) AS x(framework text, control_id text)
         ON c.framework = x.framework AND c.control_id = x.control_id
       WHERE c.tenant_id = $1`,
      [tenantId, JSON.stringify(refsJson(refs))],
    );
    return rows.map((r) => ({ framework: r.framework, controlId: r.control_id }));
  },

  async controlsNamed(q, tenantId, ids) {
    if (ids.length === 0) return [];
    const { rows } = await q.query<{ framework: string; control_id: string }>(
      `SELECT framework, control_id FROM compliance_controls WHERE tenant_id = $1 AND control_id = ANY($2::text[])
       ORDER BY framework, control_id`,
      [tenantId, ids],
    );
    return rows.map((r) => ({ framework: r.framework, controlId: r.control_id }));
  },
};
