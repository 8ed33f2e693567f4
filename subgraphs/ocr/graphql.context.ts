// The per-request GraphQL context: the caller, the service, and a DataLoader that batches the
// OcrJob entity references of one request into one tenant-scoped store call.
import DataLoader from 'dataloader';
import type { Caller } from '../../platform/auth/caller';
import type { OcrService } from './ocr.service';
import type { OcrJob } from './ocr.types';

export interface OcrGraphQLContext {
  caller: Caller;
  ocr: OcrService;
  maxBytes: number;
  token?: string;
  loaders: { jobById: DataLoader<string, OcrJob | null> };
}

export function ocrContext(caller: Caller, ocr: OcrService, maxBytes: number, token?: string): OcrGraphQLContext {
  return { caller, ocr, maxBytes, token, loaders: { jobById: new DataLoader((ids) => ocr.jobsByIds(caller, ids)) } };
}
