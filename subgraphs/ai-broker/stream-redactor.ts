// Redaction of a streamed answer: a value can arrive split across pieces ("555-12" then
// "3-4567"), so text is released only up to a point no PII span crosses. The cut is the last
// whitespace at least HOLD characters before the end of what has arrived; if masking the part
// before the cut alone differs from masking it as part of everything so far, a span crosses the
// cut and the text waits for more.
const HOLD = 160;

export interface StreamRedaction {
  /** Redacts and counts (what the caller receives). */
  redact(text: string): string;
  /** Masks without counting: only to find where spans lie. */
  preview(text: string): string;
}

export class StreamRedactor {
  private buffer = '';

  constructor(private readonly redaction: StreamRedaction) {}

  /** Text safe to send now (already redacted), possibly empty. */
  push(piece: string): string {
    this.buffer += piece;
    if (this.buffer.length <= HOLD) return '';
    let cut = -1;
    for (let i = this.buffer.length - HOLD; i > 0; i--) {
      if (/\s/.test(this.buffer[i]!)) {
        cut = i + 1;
        break;
      }
    }
    if (cut <= 0) return '';
    const released = this.buffer.slice(0, cut);
    if (!this.redaction.preview(this.buffer).startsWith(this.redaction.preview(released))) return '';
    this.buffer = this.buffer.slice(cut);
    return this.redaction.redact(released);
  }

  /** The rest, redacted. */
  end(): string {
    const rest = this.buffer;
    this.buffer = '';
    return rest ? this.redaction.redact(rest) : '';
  }
}
