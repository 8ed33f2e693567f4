// The OCR service's API as other services call it, in wire names: the request and
// response types of platform/clients/ocr.client.ts. What the serving routes send and accept must stay
// assignable to these (compile-time checks in test/unit/platform/contracts.test.ts).

export interface OcrText {
  jobId: string;
  text: string;
  confidence: number | null;
}

export interface OcrJobBody {
  job_id?: string;
  id?: string;
  status?: string;
  extracted_text?: string | null;
  text?: string | null;
  confidence_score?: number | null;
  error?: string | null;
  detail?: unknown;
}
