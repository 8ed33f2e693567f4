-- The ledger's Merkle tree keeps subtrees of level >= 4 only (subgraphs/ledger/merkle.ts,
-- STORED_LEVEL); lower ones are recomputed from their leaves when a proof needs them.
DELETE FROM "ledger_tree_nodes" WHERE "level" < 4;
