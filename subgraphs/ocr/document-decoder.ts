// Decodes uploads in a separate process (decoder.child.mjs): images to RGBA, PDFs to their text
// layer or rendered pages. @napi-rs/canvas segfaults on some malformed images, which would take
// the whole service down; here it ends only the child, the upload is reported as corrupt (422)
// and the next request starts a fresh child. Requests are answered in order, one at a time per
// child (decoding is fast next to OCR).
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../platform/project-root';
import { CorruptDocumentError } from './document-kind';

export interface Rgba {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

export interface PdfPage {
  page: number;
  text?: string;
  rgba?: Rgba;
}

/** Thrown for an encrypted PDF. */
export class EncryptedDocumentError extends Error {}

const CHILD = path.join(PROJECT_ROOT, 'subgraphs', 'ocr', 'decoder.child.mjs');

interface Pending {
  resolve(answer: Record<string, unknown>): void;
  timer: NodeJS.Timeout;
}

export class DocumentDecoder {
  private child: ChildProcess | null = null;
  private ready: Promise<void> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** How many times the child died on an input (crashes contained). */
  crashes = 0;

  constructor(private readonly timeoutMs = 60_000) {}

  private start(): Promise<void> {
    if (this.ready && this.child) return this.ready;
    const child = fork(CHILD, [], {
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      execArgv: [],
    });
    this.child = child;
    this.ready = new Promise((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('error', reject);
    });
    child.on('message', (msg: { id?: number }) => {
      if (msg.id === undefined) return;
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      p.resolve(msg as Record<string, unknown>);
    });
    child.once('exit', (code, signal) => {
      if (this.child === child) {
        this.child = null;
        this.ready = null;
      }
      if (signal || code) this.crashes++;
      // Everything in flight was (or was queued behind) the input that killed it.
      for (const [id, p] of this.pending) {
        clearTimeout(p.timer);
        p.resolve({ id, error: 'the decoder stopped on this input' });
      }
      this.pending.clear();
    });
    return this.ready;
  }

  private async request(message: Record<string, unknown>): Promise<Record<string, unknown>> {
    await this.start();
    const child = this.child!;
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ id, error: 'decoding took too long' });
        child.kill('SIGKILL');
      }, this.timeoutMs);
      this.pending.set(id, { resolve, timer });
      child.send({ id, ...message });
    });
  }

  async image(bytes: Buffer): Promise<Rgba> {
    const a = await this.request({ op: 'image', bytes });
    if (a.error) throw new CorruptDocumentError('The image could not be decoded');
    return { width: a.width as number, height: a.height as number, data: a.rgba as Uint8ClampedArray };
  }

  async pdf(bytes: Buffer, limits: { maxPages: number; maxPixels: number }): Promise<PdfPage[]> {
    const a = await this.request({ op: 'pdf', bytes, ...limits });
    if (a.error === 'encrypted') throw new EncryptedDocumentError('The PDF is encrypted');
    if (a.error) throw new CorruptDocumentError(`The PDF could not be read: ${String(a.error)}`);
    return (
      a.pages as { page: number; text?: string; width?: number; height?: number; rgba?: Uint8ClampedArray }[]
    ).map((p) =>
      p.text !== undefined
        ? { page: p.page, text: p.text }
        : { page: p.page, rgba: { width: p.width!, height: p.height!, data: p.rgba! } },
    );
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    this.ready = null;
    if (child && child.exitCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill();
      });
    }
  }
}
