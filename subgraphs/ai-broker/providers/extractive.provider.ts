// The built-in offline model: no weights, no network. It answers from the retrieved passages it
// is given, quoting the sentences that share most words with the question, and says plainly when
// it has nothing to answer from. It is what answers when no vendor is configured, and
// `model_used` always names it (`extractive`), so nobody mistakes it for a language model.
import { estimateTokens, type ChatRequest, type ChatResult, type ProviderAdapter, type StreamEvent } from './provider';

export const EXTRACTIVE_MODEL_ID = 'extractive';
const STOP = new Set(
  'a an the and or of to in on for with is are was were be by at as it this that what which who how why when where do does did can could should would i you we they my your our their from about please tell me explain'.split(
    ' ',
  ),
);
const MAX_SENTENCES = 3;

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOP.has(w));
}

export function extractiveAnswer(question: string, passages: readonly string[]): string {
  if (passages.length === 0) {
    return (
      'No language model is configured and no retrieved context was available, so the offline extractive model has nothing to answer from. ' +
      'Configure a vendor key (ANTHROPIC_API_KEY, OPENAI_API_KEY or LOCAL_LLM_BASE_URL) or ask with use_rag over indexed documents.'
    );
  }
  const asked = new Set(words(question));
  const sentences = passages.flatMap((p, passage) =>
    (p.match(/[^.!?\n]+[.!?]?/g) ?? [])
      .map((s, i) => ({ text: s.trim(), passage, i }))
      .filter((s) => s.text.length > 0),
  );
  const scored = sentences.map((s) => ({ ...s, score: words(s.text).filter((w) => asked.has(w)).length }));
  const best = scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.passage - b.passage || a.i - b.i)
    .slice(0, MAX_SENTENCES);
  if (best.length === 0)
    return `From the retrieved context (no sentence matched the question's words closely): ${sentences[0]!.text}`;
  best.sort((a, b) => a.passage - b.passage || a.i - b.i);
  return `From the retrieved context: ${best.map((s) => s.text).join(' ')}`;
}

export class ExtractiveProvider implements ProviderAdapter {
  readonly name = 'extractive' as const;

  configured(): boolean {
    return true;
  }

  async complete(request: ChatRequest): Promise<ChatResult> {
    const question = request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
    let text = request.offline ? request.offline() : extractiveAnswer(question, request.context ?? []);
    // Honour max_tokens as a vendor would: cut the answer at the budget.
    if (estimateTokens(text) > request.maxTokens) text = text.slice(0, request.maxTokens * 4);
    const prompt = [request.system ?? '', ...request.messages.map((m) => m.content)].join('\n');
    return { text, promptTokens: estimateTokens(prompt), completionTokens: estimateTokens(text) };
  }

  async *stream(request: ChatRequest): AsyncIterable<StreamEvent> {
    const result = await this.complete(request);
    for (const piece of result.text.match(/\S+\s*/g) ?? []) yield { type: 'text', text: piece };
    yield { type: 'usage', promptTokens: result.promptTokens, completionTokens: result.completionTokens };
  }

  async probe(): Promise<void> {}
}
