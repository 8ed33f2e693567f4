-- Idempotency keys are unique per tenant only where there is one: most appends carry no key, and
-- the full index took an entry (and a WAL record) for every one of them, the ninth write of an
-- append (issue 35). Same name, same uniqueness for every stored key; lookups name
-- `idempotency_key IS NOT NULL` or compare it with a value, so they still use it.
-- Partial indexes are not expressible in the Prisma schema, which keeps @@unique([tenantId, idempotencyKey]).
DROP INDEX "ledger_events_tenant_id_idempotency_key_key";
CREATE UNIQUE INDEX "ledger_events_tenant_id_idempotency_key_key" ON "ledger_events" ("tenant_id", "idempotency_key")
  WHERE "idempotency_key" IS NOT NULL;
