-- The full (tenant_id, subject, id) index duplicated the partial one of unpublished rows
-- (20261129001500_notice_outbox_unpublished), which is what the relay's blocked-subject check reads;
-- no statement read the full one (pg_stat_user_indexes: 0 scans under the validation bench). It
-- cost an index entry on every notice's insert and another on its mark (the mark is not a HOT
-- update: published_at is indexed): ~17 + ~7 us of PostgreSQL CPU a notice (docs/benchmarks.md,
-- eleventh session, val).
DROP INDEX IF EXISTS "notice_outbox_tenant_id_subject_id_idx";
