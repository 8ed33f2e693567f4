-- CreateTable
CREATE TABLE "oidc_payloads" (
    "model" VARCHAR(40) NOT NULL,
    "id" VARCHAR(255) NOT NULL,
    "tenant_id" VARCHAR(255),
    "payload" JSONB NOT NULL,
    "grant_id" VARCHAR(255),
    "user_code" VARCHAR(255),
    "uid" VARCHAR(255),
    "expires_at" TIMESTAMPTZ(6),
    "consumed_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oidc_payloads_pkey" PRIMARY KEY ("model","id")
);

-- CreateTable
CREATE TABLE "oidc_clients" (
    "client_id" VARCHAR(64) NOT NULL,
    "tenant_id" VARCHAR(255) NOT NULL,
    "name" VARCHAR(100) NOT NULL,
    "redirect_uris" TEXT[],
    "first_party" BOOLEAN NOT NULL DEFAULT false,
    "sealed_secret" TEXT,
    "created_by" VARCHAR(255) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oidc_clients_pkey" PRIMARY KEY ("client_id")
);

-- CreateTable
CREATE TABLE "oidc_signing_keys" (
    "kid" VARCHAR(64) NOT NULL,
    "alg" VARCHAR(16) NOT NULL,
    "public_jwk" JSONB NOT NULL,
    "sealed_private" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "activates_at" TIMESTAMPTZ(6) NOT NULL,
    "retired_at" TIMESTAMPTZ(6),
    "expires_at" TIMESTAMPTZ(6),

    CONSTRAINT "oidc_signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateIndex
CREATE INDEX "oidc_payloads_grant_id_idx" ON "oidc_payloads"("grant_id");

-- CreateIndex
CREATE INDEX "oidc_payloads_uid_idx" ON "oidc_payloads"("uid");

-- CreateIndex
CREATE INDEX "oidc_payloads_expires_at_idx" ON "oidc_payloads"("expires_at");

-- CreateIndex
CREATE INDEX "oidc_payloads_tenant_id_idx" ON "oidc_payloads"("tenant_id");

-- CreateIndex
CREATE INDEX "oidc_clients_tenant_id_idx" ON "oidc_clients"("tenant_id");

-- CreateIndex
CREATE INDEX "oidc_signing_keys_activates_at_idx" ON "oidc_signing_keys"("activates_at");
