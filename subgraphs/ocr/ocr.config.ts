// The OCR service's own settings read at build time: the upload limits (shared by REST, GraphQL
// uploads and the domain) and the auth mode. The engine's settings (OCR_WORKERS, OCR_LANG_*,
// OCR_JOB_LEASE_MS, the vision model) are read where the engine is wired (ocr.module.ts).
import { readInt } from '../../platform/config/env';
import { serviceRequiresAuth } from '../../platform/config/platform.config';
import type { Env } from '../../platform/service';
import type { OcrLimits } from './ocr.service';

export interface OcrConfig {
  /** OCR_REQUIRE_AUTH, else REQUIRE_AUTH, else true (serviceRequiresAuth). */
  requireAuth: boolean;
  limits: OcrLimits;
}

/** OCR_MAX_FILE_BYTES (25 MiB), OCR_MAX_PIXELS (40 million) and OCR_MAX_PAGES (50). */
export function ocrLimits(env: Env): OcrLimits {
  return {
    maxBytes: readInt(env, 'OCR_MAX_FILE_BYTES', 25 * 1024 * 1024, { min: 1 }),
    maxPixels: readInt(env, 'OCR_MAX_PIXELS', 40_000_000, { min: 1 }),
    maxPages: readInt(env, 'OCR_MAX_PAGES', 50, { min: 1 }),
  };
}

export function loadOcrConfig(env: Env): OcrConfig {
  return { requireAuth: serviceRequiresAuth(env, { name: 'ocr' }), limits: ocrLimits(env) };
}
