#!/usr/bin/env node
// A ledger proof verifier that trusts no server. One file, Node.js's own crypto only, meant to
// be read by an auditor in ten minutes. It checks what the ledger's proof routes answer
// (docs/ledger.md, "Verifying without trusting us"), against a JWKS the auditor saved earlier:
//
//   node verify-proof.cjs --jwks jwks.json inclusion.json     an entry is in a signed checkpoint
//   node verify-proof.cjs --jwks jwks.json consistency.json   a signed checkpoint extends an older one
//   node verify-proof.cjs --jwks jwks.json checkpoint.json    a checkpoint's signature
//
// Exit status 0 when every check passes, 1 when one fails (the reason is printed), 2 on bad usage.
/* eslint-disable no-redeclare -- the one-file verifier names Node's modules as the docs do */
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');

// ---- Hashes: RFC 9162, section 2.1 --------------------------------------------------------
// crypto.hash (Node.js >= 20.12) hashes in one call, several times faster than createHash for
// inputs this small; older Node.js falls back to createHash.
const sha256 = crypto.hash
  ? (data) => crypto.hash('sha256', data, 'buffer')
  : (data) => crypto.createHash('sha256').update(data).digest();
const hex = (text, what) => {
  if (typeof text !== 'string' || !/^[0-9a-f]{64}$/.test(text))
    throw new Error(`${what} is not 64 lowercase hex characters`);
  return Buffer.from(text, 'hex');
};
// A leaf is an entry's chain_hash (32 bytes); 0x00 and 0x01 keep leaves and nodes apart.
const leafHash = (chainHashHex) => sha256(Buffer.concat([Buffer.from([0]), hex(chainHashHex, 'chain_hash')]));
const node = Buffer.alloc(65, 1); // 0x01 || left || right, reused: the verifier is synchronous
const nodeHash = (left, right) => {
  left.copy(node, 1);
  right.copy(node, 33);
  return sha256(node);
};

// ---- The spec's hash rules for one entry (spec 03) ----------------------------------------
// RFC 8785 canonical JSON: keys sorted by UTF-16 code units, no whitespace, ES number form.
function canonical(value) {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('a number JSON cannot carry');
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
}

function checkEntry(entry) {
  const content = {
    tenant_id: entry.tenant_id,
    event_type: entry.event_type,
    event_data: entry.event_data,
    user_id: entry.user_id === undefined ? null : entry.user_id,
    created_at: entry.created_at,
  };
  const contentHash = sha256(canonical(content)).toString('hex');
  if (contentHash !== entry.content_hash)
    throw new Error(`content_hash does not match the entry's fields (computed ${contentHash})`);
  const chainHash = sha256(entry.content_hash + entry.previous_hash).toString('hex');
  if (chainHash !== entry.chain_hash)
    throw new Error(`chain_hash is not SHA-256(content_hash + previous_hash) (computed ${chainHash})`);
}

// ---- Checkpoints: Ed25519 over a JSON array -------------------------------------------------
// Many proofs cite one checkpoint: a checkpoint verified once (against the same JWKS object) is
// remembered by its exact signed fields, so only the hashes are redone for each proof. What is
// remembered with it is the memo of the nodes its proofs proved (see rootFromInclusion).
const verifiedCheckpoints = new WeakMap();

function checkCheckpoint(checkpoint, jwks, tenantId) {
  if (tenantId !== undefined && checkpoint.tenant_id !== tenantId)
    throw new Error('the checkpoint is of another tenant');
  const signed = JSON.stringify([
    checkpoint.format,
    checkpoint.tenant_id,
    checkpoint.tree_size,
    checkpoint.root_hash,
    checkpoint.timestamp,
    checkpoint.key_id,
    checkpoint.signature,
  ]);
  let seen = verifiedCheckpoints.get(jwks);
  if (!seen) verifiedCheckpoints.set(jwks, (seen = new Map()));
  let memo = seen.get(signed);
  if (memo) return memo;
  checkSignature(checkpoint, jwks);
  seen.set(signed, (memo = new Map()));
  return memo;
}

function checkSignature(checkpoint, jwks) {
  if (checkpoint.format !== 'ledger-checkpoint/v1') throw new Error(`unknown checkpoint format ${checkpoint.format}`);
  const jwk = (jwks.keys || []).find((k) => k.kid === checkpoint.key_id);
  if (!jwk) throw new Error(`key ${checkpoint.key_id} is not in the JWKS`);
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519') throw new Error(`key ${jwk.kid} is not an Ed25519 key`);
  // The kid is the key's RFC 7638 thumbprint: a JWKS entry cannot name another key.
  const thumbprint = sha256(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x })).toString('base64url');
  if (thumbprint !== jwk.kid) throw new Error(`key ${jwk.kid} is not the thumbprint of its own key`);
  const key = crypto.createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  const message = Buffer.from(
    JSON.stringify([
      'ledger-checkpoint/v1',
      checkpoint.tenant_id,
      checkpoint.tree_size,
      checkpoint.root_hash,
      checkpoint.timestamp,
      checkpoint.key_id,
    ]),
  );
  if (!crypto.verify(null, message, key, Buffer.from(String(checkpoint.signature), 'base64url')))
    throw new Error('the checkpoint signature does not verify');
  hex(checkpoint.root_hash, 'root_hash');
  if (!Number.isSafeInteger(checkpoint.tree_size) || checkpoint.tree_size < 1)
    throw new Error('tree_size is not a positive integer');
}

// ---- Inclusion: RFC 9162, 2.1.3.2 ---------------------------------------------------------
// Proofs against one checkpoint share their upper nodes. In a tree of a given size, the node a
// step of the algorithm computes is named by (level, fn) once the step's shifts are done. After a
// proof verifies, each node it computed is remembered with the rest of its path. A later proof
// that computes one of them with the same hash and carries the very same rest of path would only
// redo checked work, so it stops there with the same answer. Any difference, in a hash or a byte
// of the path, takes the whole computation. The memo is bounded; it only saves time.
const MEMO_LIMIT = 200000;

function rootFromInclusion(leafIndex, treeSize, leaf, path, memo, computed) {
  if (!(leafIndex < treeSize)) throw new Error('leaf_index is not inside the tree');
  let fn = leafIndex;
  let sn = treeSize - 1;
  let level = 0;
  let r = leaf;
  for (let i = 0; i < path.length; i++) {
    const sibling = hex(path[i], 'an audit path hash');
    if (sn === 0) throw new Error('the audit path is too long');
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(sibling, r);
      if (fn % 2 === 0)
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
          level++;
        }
    } else {
      r = nodeHash(r, sibling);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
    level++;
    const key = `${level}:${fn}`;
    const known = memo.get(key);
    if (known && known.hash.equals(r) && sameRest(path, i + 1, known.path, known.next)) return known.root;
    computed.push([key, r, i + 1]);
  }
  if (sn !== 0) throw new Error('the audit path is too short');
  return r;
}

function sameRest(path, from, knownPath, knownFrom) {
  if (path.length - from !== knownPath.length - knownFrom) return false;
  for (let i = from, j = knownFrom; i < path.length; i++, j++) if (path[i] !== knownPath[j]) return false;
  return true;
}

function verifyInclusion(proof, jwks) {
  const memo = checkCheckpoint(proof.checkpoint, jwks, proof.tenant_id);
  const entry = proof.entry;
  if (entry.tenant_id !== proof.tenant_id) throw new Error('the entry is of another tenant');
  if (entry.seq !== proof.leaf_index + 1) throw new Error("the entry's seq is not leaf_index + 1");
  if (proof.tree_size !== proof.checkpoint.tree_size)
    throw new Error("the proof is not for the checkpoint's tree size");
  checkEntry(entry);
  const computed = [];
  const path = proof.audit_path;
  if (!Array.isArray(path)) throw new Error('audit_path is not a list');
  const root = rootFromInclusion(proof.leaf_index, proof.tree_size, leafHash(entry.chain_hash), path, memo, computed);
  if (!root.equals(hex(proof.checkpoint.root_hash, 'root_hash')))
    throw new Error("the audit path does not lead to the checkpoint's root");
  for (const [key, hash, next] of computed)
    if (memo.size < MEMO_LIMIT && !memo.has(key)) memo.set(key, { hash, path, next, root });
  return `entry ${entry.id} (seq ${entry.seq}) of tenant ${proof.tenant_id} is in the signed tree of ${proof.tree_size} entries`;
}

// ---- Consistency: RFC 9162, 2.1.4.2 -------------------------------------------------------
function verifyConsistency(proof, jwks) {
  const { first, second } = proof;
  checkCheckpoint(first, jwks, proof.tenant_id);
  checkCheckpoint(second, jwks, proof.tenant_id);
  const m = first.tree_size;
  const n = second.tree_size;
  const oldRoot = hex(first.root_hash, 'first root_hash');
  const newRoot = hex(second.root_hash, 'second root_hash');
  let path = proof.proof.map((p) => hex(p, 'a consistency proof hash'));
  if (m > n) throw new Error('the first tree is larger than the second');
  if (m === n) {
    if (path.length !== 0 || !oldRoot.equals(newRoot))
      throw new Error('equal sizes need an empty proof and equal roots');
    return `checkpoints of ${m} entries agree`;
  }
  // A power-of-two old tree is its own first node.
  if (Number.isInteger(Math.log2(m))) path = [oldRoot, ...path];
  if (path.length === 0) throw new Error('the consistency proof is empty');
  let fn = m - 1;
  let sn = n - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) throw new Error('the consistency proof is too long');
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0)
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) throw new Error('the consistency proof is too short');
  if (!fr.equals(oldRoot)) throw new Error("the proof does not rebuild the first checkpoint's root");
  if (!sr.equals(newRoot)) throw new Error("the proof does not rebuild the second checkpoint's root");
  return `the signed tree of ${n} entries extends the signed tree of ${m} entries (tenant ${proof.tenant_id})`;
}

function verify(document, jwks) {
  if (document.type === 'inclusion') return verifyInclusion(document, jwks);
  if (document.type === 'consistency') return verifyConsistency(document, jwks);
  if (document.format === 'ledger-checkpoint/v1') {
    checkCheckpoint(document, jwks);
    return `checkpoint of ${document.tree_size} entries of tenant ${document.tenant_id} is signed by ${document.key_id}`;
  }
  throw new Error('not an inclusion proof, a consistency proof or a checkpoint');
}

module.exports = { verify, verifyInclusion, verifyConsistency, checkCheckpoint, checkEntry, canonical };

if (require.main === module) {
  const args = process.argv.slice(2).filter((a) => a !== 'proof');
  const at = args.indexOf('--jwks');
  if (at < 0 || !args[at + 1] || args.length !== 3) {
    console.error(
      'usage: verify-proof.cjs --jwks <jwks.json> <proof.json>   (proof: inclusion, consistency or checkpoint)',
    );
    process.exit(2);
  }
  const jwksFile = args[at + 1];
  const proofFile = args.filter((_, i) => i !== at && i !== at + 1)[0];
  try {
    const read = (f) => JSON.parse(fs.readFileSync(f === '-' ? 0 : f, 'utf8'));
    console.log(`OK: ${verify(read(proofFile), read(jwksFile))}`);
  } catch (err) {
    console.error(`FAILED: ${err.message}`);
    process.exit(1);
  }
}
