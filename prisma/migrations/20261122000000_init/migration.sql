-- CreateTable
CREATE TABLE "tenants" (
    "id" VARCHAR(255) NOT NULL,
    "name" VARCHAR(255) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "metadata" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "tenants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "username" VARCHAR(255) NOT NULL,
    "email" VARCHAR(255),
    "password_hash" VARCHAR(255) NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_login" TIMESTAMPTZ(6),
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "is_verified" BOOLEAN NOT NULL DEFAULT false,
    "is_service" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "roles" (
    "id" UUID NOT NULL,
    "name" VARCHAR(100) NOT NULL,
    "description" TEXT,
    "scopes" TEXT[],
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "roles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_roles" (
    "user_id" UUID NOT NULL,
    "role_id" UUID NOT NULL,
    "assigned_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "assigned_by" UUID,

    CONSTRAINT "user_roles_pkey" PRIMARY KEY ("user_id","role_id")
);

-- CreateTable
CREATE TABLE "refresh_tokens" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "token_hash" VARCHAR(255) NOT NULL,
    "family_id" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked" BOOLEAN NOT NULL DEFAULT false,
    "used_at" TIMESTAMPTZ(6),

    CONSTRAINT "refresh_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_events" (
    "id" UUID NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "seq" BIGINT NOT NULL,
    "event_type" VARCHAR(255) NOT NULL,
    "event_data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL,
    "created_at_text" VARCHAR(40) NOT NULL,
    "content_hash" CHAR(64) NOT NULL,
    "previous_hash" CHAR(64) NOT NULL,
    "chain_hash" CHAR(64) NOT NULL,
    "user_id" VARCHAR(255),
    "correlation_id" VARCHAR(255),
    "description" TEXT,
    "idempotency_key" VARCHAR(255),

    CONSTRAINT "ledger_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_chain_heads" (
    "tenant_id" VARCHAR(255) NOT NULL,
    "last_seq" BIGINT NOT NULL,
    "last_hash" CHAR(64) NOT NULL,

    CONSTRAINT "ledger_chain_heads_pkey" PRIMARY KEY ("tenant_id")
);

-- CreateTable
CREATE TABLE "outbox_events" (
    "id" BIGSERIAL NOT NULL,
    "service" VARCHAR(64) NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "event_type" VARCHAR(255) NOT NULL,
    "event_data" JSONB NOT NULL,
    "user_id" VARCHAR(255),
    "correlation_id" VARCHAR(255),
    "description" TEXT,
    "idempotency_key" VARCHAR(255) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(6),
    "last_error" TEXT,

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_username_key" ON "users"("username");

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "users_tenant_id_idx" ON "users"("tenant_id");

-- CreateIndex
CREATE UNIQUE INDEX "roles_name_key" ON "roles"("name");

-- CreateIndex
CREATE UNIQUE INDEX "refresh_tokens_token_hash_key" ON "refresh_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "refresh_tokens_family_id_idx" ON "refresh_tokens"("family_id");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_events_chain_hash_key" ON "ledger_events"("chain_hash");

-- CreateIndex
CREATE INDEX "ledger_events_tenant_id_event_type_seq_idx" ON "ledger_events"("tenant_id", "event_type", "seq");

-- CreateIndex
CREATE INDEX "ledger_events_tenant_id_user_id_seq_idx" ON "ledger_events"("tenant_id", "user_id", "seq");

-- CreateIndex
CREATE INDEX "ledger_events_tenant_id_correlation_id_seq_idx" ON "ledger_events"("tenant_id", "correlation_id", "seq");

-- CreateIndex
CREATE INDEX "ledger_events_tenant_id_created_at_idx" ON "ledger_events"("tenant_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_events_tenant_id_seq_key" ON "ledger_events"("tenant_id", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_events_tenant_id_idempotency_key_key" ON "ledger_events"("tenant_id", "idempotency_key");

-- CreateIndex
CREATE UNIQUE INDEX "outbox_events_idempotency_key_key" ON "outbox_events"("idempotency_key");

-- CreateIndex
CREATE INDEX "outbox_events_delivered_at_next_attempt_at_id_idx" ON "outbox_events"("delivered_at", "next_attempt_at", "id");

-- AddForeignKey
ALTER TABLE "user_roles" ADD CONSTRAINT "user_roles_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_roles" ADD CONSTRAINT "user_roles_role_id_fkey" FOREIGN KEY ("role_id") REFERENCES "roles"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Ledger events are append-only (spec 03, hash rule 4): the database itself refuses to change them.
CREATE FUNCTION ledger_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_events is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER ledger_events_no_update_or_delete
  BEFORE UPDATE OR DELETE ON "ledger_events"
  FOR EACH ROW EXECUTE FUNCTION ledger_events_append_only();

CREATE TRIGGER ledger_events_no_truncate
  BEFORE TRUNCATE ON "ledger_events"
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_events_append_only();
