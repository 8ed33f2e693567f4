// Ed25519 signatures over checkpoints. What is signed is a JSON array an auditor can rebuild
// with any JSON library (checkpointMessage); the key id is the key's RFC 7638 thumbprint, so a
// JWKS entry names itself. The keys ever used stay in ledger_checkpoint_keys and in the JWKS:
// rotation adds a key and retires the old one, and old checkpoints keep verifying.
import crypto, { type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Logger } from '../../platform/logging/logger';
import type { CheckpointKey, LedgerProofStore } from './ledger-proof.store';

export const CHECKPOINT_FORMAT = 'ledger-checkpoint/v1';

export interface CheckpointFields {
  tenantId: string;
  treeSize: number;
  rootHash: string;
  timestamp: string;
  keyId: string;
}

/** The bytes a checkpoint's signature covers. */
export function checkpointMessage(c: CheckpointFields): Buffer {
  return Buffer.from(
    JSON.stringify([CHECKPOINT_FORMAT, c.tenantId, c.treeSize, c.rootHash, c.timestamp, c.keyId]),
    'utf8',
  );
}

export interface CheckpointSigner {
  keyId: string;
  sign(fields: Omit<CheckpointFields, 'keyId'>): { keyId: string; signature: string };
  /** The public keys ever used, newest last, as a JWK Set. */
  jwks(): Promise<{ keys: (JWK & { kid: string; use: string; alg: string })[] }>;
}

function publicJwkOf(key: KeyObject): JWK {
  const { kty, crv, x } = crypto.createPublicKey(key).export({ format: 'jwk' }) as JWK;
  return { kty, crv, x };
}

export function parseEd25519Pem(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = crypto.createPrivateKey({ key: pem.replace(/\\n/g, '\n'), format: 'pem' });
  } catch (err) {
    throw new Error(`LEDGER_CHECKPOINT_PRIVATE_KEY is not a PKCS8 PEM private key (${(err as Error).message})`, {
      cause: err,
    });
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`LEDGER_CHECKPOINT_PRIVATE_KEY must be Ed25519, not ${key.asymmetricKeyType}`);
  return key;
}

/**
 * The signer of this process: the operator's key (LEDGER_CHECKPOINT_PRIVATE_KEY) when set, else
 * the development key kept in the database, made on first start. The operator's key is the one
 * to use in production: a key stored beside the log it signs protects against less (docs/ledger.md).
 */
export async function loadCheckpointSigner(
  store: LedgerProofStore,
  pem: string | undefined,
  logger: Logger,
): Promise<CheckpointSigner> {
  let key: KeyObject;
  if (pem) {
    key = parseEd25519Pem(pem);
    const publicJwk = publicJwkOf(key);
    await store.saveKey(
      {
        keyId: await calculateJwkThumbprint(publicJwk),
        publicJwk: publicJwk as Record<string, unknown>,
        privatePem: null,
      },
      true,
    );
  } else {
    const existing = (await store.keys()).filter((k: CheckpointKey) => k.privatePem && !k.retiredAt).pop();
    if (existing) key = crypto.createPrivateKey(existing.privatePem!);
    else {
      key = crypto.generateKeyPairSync('ed25519').privateKey;
      const publicJwk = publicJwkOf(key);
      const privatePem = key.export({ format: 'pem', type: 'pkcs8' }).toString();
      await store.saveKey(
        { keyId: await calculateJwkThumbprint(publicJwk), publicJwk: publicJwk as Record<string, unknown>, privatePem },
        true,
      );
      logger.warn(
        'ledger: no LEDGER_CHECKPOINT_PRIVATE_KEY; checkpoints are signed with a development key kept in the database',
      );
    }
  }
  const keyId = await calculateJwkThumbprint(publicJwkOf(key));
  return {
    keyId,
    sign(fields) {
      const signature = crypto.sign(null, checkpointMessage({ ...fields, keyId }), key).toString('base64url');
      return { keyId, signature };
    },
    async jwks() {
      const keys = await store.keys();
      return { keys: keys.map((k) => ({ ...(k.publicJwk as JWK), kid: k.keyId, use: 'sig', alg: 'EdDSA' })) };
    },
  };
}
