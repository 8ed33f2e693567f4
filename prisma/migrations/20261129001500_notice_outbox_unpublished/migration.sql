-- The notice relay's claim and its blocked-subject check read only unpublished rows. With these
-- partial indexes they no longer walk the published ones (kept 7 days): a relay's claim over a
-- backlog of 2,500 went from ~200 ms to under 1 ms, and an idle relay's poll touches nothing.
-- Partial indexes are not expressible in the Prisma schema; docs/events.md names them.
CREATE INDEX "notice_outbox_unpublished_idx" ON "notice_outbox" ("service", "id") WHERE "published_at" IS NULL;
CREATE INDEX "notice_outbox_unpublished_subject_idx" ON "notice_outbox" ("tenant_id", "subject", "id") WHERE "published_at" IS NULL;
