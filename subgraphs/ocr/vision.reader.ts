// Tier 2: a vision-capable model behind an OpenAI-compatible chat-completions API (the `openai`
// SDK; OCR_VISION_MODEL with OPENAI_API_KEY and optionally OPENAI_BASE_URL). The page goes as a PNG
// data URL; the model answers JSON {text, confidence}. Without a model and key, tier 2 is off and
// jobs say so.
import OpenAI from 'openai';
import type { Env } from '../../platform/service';

export interface VisionPage {
  text: string;
  /** 0..1: the model's own estimate, or 0.9 (the spec's tier-2 accuracy floor) when it gives none. */
  confidence: number;
}

export interface VisionReader {
  readonly model: string;
  read(png: Buffer): Promise<VisionPage>;
}

const PROMPT =
  'Transcribe all text in this document image exactly, preserving line breaks. ' +
  'Answer only with JSON: {"text": "<the transcription>", "confidence": <0..1, how sure you are>}.';

export function visionReaderFrom(env: Env): VisionReader | null {
  const model = env.OCR_VISION_MODEL;
  const apiKey = env.OCR_VISION_API_KEY ?? env.OPENAI_API_KEY;
  if (!model || !apiKey) return null;
  const client = new OpenAI({
    apiKey,
    baseURL: env.OCR_VISION_BASE_URL ?? env.OPENAI_BASE_URL,
    timeout: Number(env.OCR_VISION_TIMEOUT_MS ?? 60_000),
    maxRetries: 1,
  });
  return {
    model,
    async read(png) {
      const completion = await client.chat.completions.create({
        model,
        temperature: 0,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: PROMPT },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
            ],
          },
        ],
      });
      const content = completion.choices[0]?.message?.content ?? '';
      return parseVisionAnswer(content);
    },
  };
}

/** The model's JSON (possibly fenced); plain text when it ignored the format. */
export function parseVisionAnswer(content: string): VisionPage {
  const body = content.replace(/^\s*```(?:json)?\s*/i, '').replace(/\s*```\s*$/, '');
  try {
    const parsed = JSON.parse(body) as { text?: unknown; confidence?: unknown };
    if (typeof parsed.text === 'string') {
      const c =
        typeof parsed.confidence === 'number' && parsed.confidence >= 0 && parsed.confidence <= 1
          ? parsed.confidence
          : 0.9;
      return { text: parsed.text.trim(), confidence: c };
    }
  } catch {
    // not JSON: the answer is the transcription
  }
  return { text: content.trim(), confidence: 0.9 };
}
