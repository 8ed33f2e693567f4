// Verification (spec 03, "Verification rules"): walks a tenant's chain in seq order, page by page
// (constant memory), recomputing each content hash and chain hash and checking each link to the
// previous event; stops at the first break and says which event and what mismatched.
import { GENESIS_HASH, sha256Hex } from './ledger.hash';
import type { LedgerStore } from './ledger.store';
import type { ChainRow, VerifyResult } from './ledger.types';

export const VERIFY_PAGE_SIZE = 10_000;

/**
 * Checks one row against its predecessor; returns the error text or null. The content JSON is
 * built inline (same text as ledger.hash.ts contentJson) to keep the hot loop allocation-light.
 */
function checkRow(
  row: ChainRow,
  tenantJson: string,
  expectedSeq: number,
  previousChainHash: string,
  typeJson: Map<string, string>,
): string | null {
  const seq = Number(row.seq);
  if (seq !== expectedSeq) return `Event ${expectedSeq}: missing from the chain (next stored event is ${seq})`;
  if (row.previous_hash !== previousChainHash) {
    return `Event ${seq}: previous_hash mismatch (stored ${row.previous_hash}, chain_hash of the preceding event is ${previousChainHash})`;
  }
  let eventType = typeJson.get(row.event_type);
  if (eventType === undefined) {
    eventType = JSON.stringify(row.event_type);
    if (typeJson.size < 1000) typeJson.set(row.event_type, eventType);
  }
  const content =
    '{"created_at":' +
    JSON.stringify(row.created_at_text) +
    ',"event_data":' +
    row.event_data +
    ',"event_type":' +
    eventType +
    ',"tenant_id":' +
    tenantJson +
    ',"user_id":' +
    (row.user_id === null ? 'null' : JSON.stringify(row.user_id)) +
    '}';
  const contentHash = sha256Hex(content);
  if (contentHash !== row.content_hash)
    return `Event ${seq}: content_hash mismatch (stored ${row.content_hash}, recomputed ${contentHash})`;
  const chain = sha256Hex(contentHash + row.previous_hash);
  if (chain !== row.chain_hash)
    return `Event ${seq}: chain_hash mismatch (stored ${row.chain_hash}, recomputed ${chain})`;
  return null;
}

export async function verifyTenantChain(
  store: LedgerStore,
  tenantId: string,
  pageSize = VERIFY_PAGE_SIZE,
): Promise<VerifyResult> {
  const tenantJson = JSON.stringify(tenantId);
  const typeJson = new Map<string, string>();
  let previous = GENESIS_HASH;
  let verified = 0;
  // The head is read first: events appended while we walk lie beyond it and are left for the
  // next verification, so a busy chain never reports a false break.
  const head = await store.getHead(tenantId);
  const end = head ? head.lastSeq : Number.MAX_SAFE_INTEGER;
  // Fetch the next page while hashing the current one: the database and the CPU work in parallel.
  let next = store.chainPage(tenantId, 0, pageSize);
  for (;;) {
    const rows = await next;
    if (rows.length === 0) break;
    const last = rows[rows.length - 1]!;
    next =
      rows.length === pageSize && Number(last.seq) < end
        ? store.chainPage(tenantId, Number(last.seq), pageSize)
        : Promise.resolve([]);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (Number(row.seq) > end && verified === end) break;
      const error = checkRow(row, tenantJson, verified + 1, previous, typeJson);
      if (error) {
        await next.catch(() => {});
        return { valid: false, totalEvents: verified, error };
      }
      previous = row.chain_hash;
      verified++;
    }
  }
  // The head remembers how long the chain was: rows removed from its end are a break too.
  if (head && (head.lastSeq !== verified || head.lastHash !== previous)) {
    return {
      valid: false,
      totalEvents: verified,
      error: `Event ${verified + 1}: missing (chain head records ${head.lastSeq} events ending in ${head.lastHash})`,
    };
  }
  return { valid: true, totalEvents: verified, error: null };
}
