// The OCR domain's records, in the spec's terms (spec 02: ocr_jobs, ocr_reviews, ocr_cache).

export type JobStatus = 'pending' | 'processing' | 'completed' | 'review' | 'failed';
/** tier1: tesseract; tier2: a vision model; tier3: a person's review; text_layer: the PDF's own text. */
export type Tier = 'tier1' | 'tier2' | 'tier3' | 'text_layer';

export interface PageResult {
  page: number;
  text: string;
  /** 0..1 */
  confidence: number;
  source: Tier;
  /** Preprocessing applied (tier 1): skew found, denoise, scale. */
  preprocessing?: { skew_degrees: number; denoised: boolean; scale: number };
}

export interface ExtractedField {
  value: string;
  /** 0..1 */
  confidence: number;
  /** dates: the ISO form (yyyy-mm-dd) of the printed value, when it is a real date */
  normalized?: string;
  /** parties: issuer | customer */
  role?: string;
}

/** invoice_number, invoice_date, due_date, dates, total, subtotal, tax, currency, vendor_name, customer_name, parties, addresses. */
export type ExtractedFields = Record<string, ExtractedField | ExtractedField[]>;

export interface OcrJob {
  id: string;
  tenantId: string;
  userId: string | null;
  documentHash: string;
  filename: string | null;
  mimeType: string;
  status: JobStatus;
  tierUsed: Tier | null;
  /** 0..1 */
  confidenceScore: number | null;
  extractedText: string | null;
  extractedFields: ExtractedFields | null;
  pages: PageResult[];
  pageCount: number;
  pagesDone: number;
  processingTimeMs: number | null;
  notes: string[];
  error: string | null;
  cacheHit: boolean;
  indexInRag: boolean;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  review: OcrReview | null;
}

export interface OcrReview {
  id: string;
  jobId: string;
  reviewerId: string | null;
  correctedText: string;
  correctedFields: ExtractedFields | null;
  confidenceAfterReview: number;
  createdAt: Date;
}

export interface CacheEntry {
  documentHash: string;
  jobId: string;
  extractedText: string;
  extractedFields: ExtractedFields | null;
  tierUsed: Tier;
  confidenceScore: number;
  pages: PageResult[];
  pageCount: number;
  hitCount: number;
  lastAccessedAt: Date;
  createdAt: Date;
}

export interface OcrStats {
  tenantId: string | null;
  totalJobs: number;
  byStatus: Record<string, number>;
  tierUsage: Record<string, number>;
  cache: { entries: number; hits: number; jobsAnsweredFromCache: number };
  reviewQueue: number;
  averageConfidence: number | null;
  averageProcessingTimeMs: number | null;
  /** Jobs read (not answered from the cache) by confidence, in ten bands: [0, 0.1), ..., [0.9, 1]. */
  confidenceHistogram: number[];
}
