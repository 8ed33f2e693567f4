// Standing orders to scan: a target with a pack's newest certified version, every `everySeconds`
// (at least SCANNER_SCHEDULE_MIN_SECONDS), and/or whenever `config.changed` or
// `ingestion.completed` arrives for the tenant. Created and deleted by a person with `write`
// (recorded in the ledger); the runs themselves are the scheduler's (scan-scheduler.ts).
import { randomUUID } from 'node:crypto';
import type { Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { SqlExecutor } from '../../platform/db/sql';
import { InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import { SCANNER_SCHEDULE_CREATED_EVENT, SCANNER_SCHEDULE_DELETED_EVENT } from './compliance-scanner.audit';
import type { ScannerConfig } from './compliance-scanner.config';
import { SERVICE, type PackService } from './pack.service';
import { scheduleStore } from './schedule.store';
import { assertMayRead, assertMayWrite } from './scanner.policy';
import { SCAN_EVENT_TRIGGERS, type ScanEventTrigger, type ScanSchedule } from './scanner.types';
import { targetStore } from './target.store';

const MAX_EVERY_SECONDS = 366 * 86_400;

export interface CreateScheduleInput {
  targetId: string;
  packId: string;
  everySeconds?: number | null;
  onEvents?: readonly string[] | null;
  tenantId?: string;
}

export class ScheduleService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly access: TenantAccess,
    private readonly packs: Pick<PackService, 'forScan'>,
    private readonly config: Pick<ScannerConfig, 'requireAuth'> & Partial<Pick<ScannerConfig, 'scheduleMinSeconds'>>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(caller: Caller, input: CreateScheduleInput): Promise<ScanSchedule> {
    const auth = assertMayWrite(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.schedule.create');
    const every = input.everySeconds ?? null;
    const min = this.config.scheduleMinSeconds ?? 300;
    if (every !== null && (!Number.isInteger(every) || every < min || every > MAX_EVERY_SECONDS))
      throw InputError.of(['everySeconds'], `Input should be an integer between ${min} and ${MAX_EVERY_SECONDS}`);
    const events = [...new Set(input.onEvents ?? [])];
    events.forEach((e, i) => {
      if (!(SCAN_EVENT_TRIGGERS as readonly string[]).includes(e))
        throw InputError.of(
          ['onEvents', i],
          `Input should be ${SCAN_EVENT_TRIGGERS.map((t) => `'${t}'`).join(' or ')}`,
        );
    });
    if (every === null && events.length === 0)
      throw InputError.of(['everySeconds'], 'A schedule needs an interval, events to run on, or both', 'missing');
    if (!(await targetStore.get(this.sql, tenantId, input.targetId)))
      throw new NotFoundError(`Target ${input.targetId} not found`);
    // A schedule that could never run is refused now: the pack must have a certified version.
    await this.packs.forScan(tenantId, input.packId, undefined);
    const schedule = {
      id: randomUUID(),
      targetId: input.targetId,
      packId: input.packId,
      everySeconds: every,
      onEvents: events as ScanEventTrigger[],
      dueAt: every === null ? null : new Date(this.now().getTime() + every * 1000),
      createdBy: auth.username,
    };
    return this.sql.transaction(async (tx) => {
      await scheduleStore.insert(tx, tenantId, schedule);
      await sqlOutboxWriter(tx, SERVICE).append(
        auditEvent(caller, {
          tenantId,
          type: SCANNER_SCHEDULE_CREATED_EVENT,
          actor: auth.username,
          data: {
            schedule_id: schedule.id,
            target_id: schedule.targetId,
            pack_id: schedule.packId,
            every_seconds: every,
            on_events: events,
          },
        }),
      );
      return (await scheduleStore.get(tx, tenantId, schedule.id))!;
    });
  }

  async list(caller: Caller, input: { tenantId?: string } = {}): Promise<ScanSchedule[]> {
    assertMayRead(caller, this.config.requireAuth);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.schedule.list');
    return scheduleStore.list(this.sql, tenantId);
  }

  async get(caller: Caller, input: { id: string; tenantId?: string }): Promise<ScanSchedule> {
    assertMayRead(caller, this.config.requireAuth);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.schedule.read');
    const schedule = await scheduleStore.get(this.sql, tenantId, input.id);
    if (!schedule) throw new NotFoundError(`Schedule ${input.id} not found`);
    return schedule;
  }

  async remove(caller: Caller, input: { id: string; tenantId?: string }): Promise<void> {
    const auth = assertMayWrite(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.schedule.delete');
    await this.sql.transaction(async (tx) => {
      if (!(await scheduleStore.remove(tx, tenantId, input.id)))
        throw new NotFoundError(`Schedule ${input.id} not found`);
      await sqlOutboxWriter(tx, SERVICE).append(
        auditEvent(caller, {
          tenantId,
          type: SCANNER_SCHEDULE_DELETED_EVENT,
          actor: auth.username,
          data: { schedule_id: input.id },
        }),
      );
    });
  }
}
