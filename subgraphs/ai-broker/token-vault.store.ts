// The tokenization vault: a reversible token per (tenant, PII value), the value encrypted with
// AES-256-GCM under the vault key. Tokens are deterministic per tenant (an HMAC of the value under
// a tenant-derived key), so the same value gets the same token in every prompt of that tenant and
// a model can still tell two people apart; another tenant's token for the same value differs, and
// a lookup is always scoped by tenant.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { PrismaLike } from '../../platform/db/prisma-like';

export interface MintedToken {
  token: string;
  category: string;
  value: string;
}

export const TOKEN_PATTERN = /\[([a-z][a-z0-9_]{0,49}):tok_([0-9a-f]{20})\]/g;

export class TokenVault {
  constructor(private readonly key: Buffer) {}

  private tenantKey(tenantId: string): Buffer {
    return createHmac('sha256', this.key).update(`tokens:${tenantId}`).digest();
  }

  mint(tenantId: string, value: string, category: string): MintedToken {
    const digest = createHmac('sha256', this.tenantKey(tenantId))
      .update(`${category}\u0000${value}`)
      .digest('hex')
      .slice(0, 20);
    return { token: `[${category}:tok_${digest}]`, category, value };
  }

  seal(value: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  open(sealed: string): string {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

export interface TokenVaultStore {
  save(tenantId: string, tokens: MintedToken[]): Promise<void>;
  /** The values of the tenant's tokens among `tokens` (others' tokens are simply not found). */
  reveal(tenantId: string, tokens: string[]): Promise<Map<string, string>>;
}

export function prismaTokenVaultStore(db: PrismaLike, vault: TokenVault): TokenVaultStore {
  return {
    async save(tenantId, tokens) {
      if (tokens.length === 0) return;
      const unique = [...new Map(tokens.map((t) => [t.token, t])).values()];
      await db.aiPiiToken.createMany({
        data: unique.map((t) => ({ tenantId, token: t.token, category: t.category, ciphertext: vault.seal(t.value) })),
        skipDuplicates: true,
      });
    },
    async reveal(tenantId, tokens) {
      if (tokens.length === 0) return new Map();
      const rows = await db.aiPiiToken.findMany({
        where: { tenantId, token: { in: [...new Set(tokens)].slice(0, 1000) } },
      });
      return new Map(rows.map((r) => [r.token, vault.open(r.ciphertext)]));
    },
  };
}
