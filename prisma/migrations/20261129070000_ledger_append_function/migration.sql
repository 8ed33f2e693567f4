-- The group commit's one-statement append (subgraphs/ledger/ledger.store.ts, appendIfUnchanged)
-- as a function, so that its statements are planned once per connection instead of on every batch
-- (issue 35: planning the single CTE statement took 0.25-3.4 ms a batch, a sixth to most of the
-- time to run it).
--
-- Why a function and not a prepared statement: PostgreSQL keeps a prepared statement's generic plan
-- from its sixth run on, chosen while the tables were small (a sequential scan of
-- ledger_chain_heads under a hash join, a sequential scan of ledger_events for the idempotency
-- keys) and never re-planned as they grow while autovacuum is off. Here every read is shaped so
-- that no plan can walk a table: one head UPDATE per tenant by its primary key, each key looked up
-- by a LIMIT 1 lateral probe of (tenant_id, idempotency_key), and `enable_seqscan = off` for the
-- function's own statements, so even a plan made on an empty table is an index probe.
--
-- Semantics are the statement's: a tenant's head moves only where the stored head is exactly
-- the expected one (seq, hash, created_at, tree frontier) and none of its rows' keys is stored yet;
-- the rows and tree nodes of exactly those tenants are inserted; their ids are returned. Heads are
-- locked in the order given (the caller sorts them by tenant), so two callers never deadlock.
-- All of it is one statement of the caller's: it lands whole or not at all.
CREATE FUNCTION ledger_append_if_unchanged(
  p_ids uuid[], p_tenants text[], p_seqs int8[], p_types text[], p_data text[], p_created text[],
  p_content text[], p_previous text[], p_chain text[], p_users text[], p_correlations text[],
  p_descriptions text[], p_keys text[], p_writers text[], p_traces text[],
  h_tenants text[], h_seqs int8[], h_hashes text[], h_us int8[], h_frontiers text[],
  w_seqs int8[], w_hashes text[], w_us int8[], w_frontiers text[],
  n_tenants text[], n_levels int2[], n_indexes int8[], n_hashes text[])
RETURNS SETOF text
LANGUAGE plpgsql
SET enable_seqscan = off
AS $$
DECLARE
  clash text[];
  moved text[] := '{}';
BEGIN
  clash := ARRAY(
    SELECT DISTINCT k.t FROM unnest(p_tenants, p_keys) AS k(t, key)
      CROSS JOIN LATERAL (
        SELECT 1 FROM ledger_events e
         WHERE e.tenant_id = k.t AND e.idempotency_key = k.key AND e.idempotency_key IS NOT NULL LIMIT 1
      ) AS stored
     WHERE k.key IS NOT NULL);
  FOR i IN 1 .. coalesce(array_length(h_tenants, 1), 0) LOOP
    CONTINUE WHEN h_tenants[i] = ANY (clash);
    UPDATE ledger_chain_heads
       SET last_seq = h_seqs[i], last_hash = h_hashes[i], last_created_at_us = h_us[i], tree_frontier = h_frontiers[i]
     WHERE tenant_id = h_tenants[i] AND last_seq = w_seqs[i] AND last_hash = w_hashes[i]
       AND last_created_at_us = w_us[i] AND tree_frontier = w_frontiers[i];
    IF FOUND THEN
      moved := moved || h_tenants[i];
    END IF;
  END LOOP;
  IF cardinality(moved) = 0 THEN
    RETURN;
  END IF;
  INSERT INTO ledger_tree_nodes (tenant_id, level, node_index, hash)
  SELECT n.tenant_id, n.level, n.node_index, n.hash
    FROM unnest(n_tenants, n_levels, n_indexes, n_hashes) AS n(tenant_id, level, node_index, hash)
   WHERE n.tenant_id = ANY (moved);
  INSERT INTO ledger_events (id, tenant_id, seq, event_type, event_data, created_at, created_at_text,
    content_hash, previous_hash, chain_hash, user_id, correlation_id, description, idempotency_key, written_by, trace_id)
  SELECT u.id, u.tenant_id, u.seq, u.event_type, u.event_data::json, u.created_at_text::timestamptz, u.created_at_text,
    u.content_hash, u.previous_hash, u.chain_hash, u.user_id, u.correlation_id, u.description, u.idempotency_key,
    u.written_by, u.trace_id
    FROM unnest(p_ids, p_tenants, p_seqs, p_types, p_data, p_created, p_content, p_previous, p_chain, p_users,
                p_correlations, p_descriptions, p_keys, p_writers, p_traces)
      AS u(id, tenant_id, seq, event_type, event_data, created_at_text, content_hash, previous_hash, chain_hash,
           user_id, correlation_id, description, idempotency_key, written_by, trace_id)
   WHERE u.tenant_id = ANY (moved);
  RETURN QUERY SELECT unnest(moved);
END
$$;
