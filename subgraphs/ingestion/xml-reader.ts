// Reads an XML source as records, streamed with saxes: each element named
// `format.record_element` (anywhere in the document) is a record, its attributes and its child
// elements' text its fields (a child repeated becomes a list). No DTD is read and no entity is
// expanded: a DOCTYPE fails the read (so no XXE and no entity bomb), and an entity reference other
// than XML's five predefined ones is an error in saxes. A record longer than
// INGESTION_MAX_RECORD_BYTES or wider than INGESTION_MAX_COLUMNS fails the read.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';
import type { IngestionLimits, PipelineDefinition } from './pipeline.types';
import { SourceFormatError, type ReadResult, type SourceRecord } from './source-format';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export function readXml(
  open: () => Readable,
  format: PipelineDefinition['format'],
  limits: IngestionLimits,
  encoding: BufferEncoding,
): ReadResult {
  const recordElement = format.record_element;
  if (!recordElement) throw new SourceFormatError('an XML source names its record_element');
  const records = async function* (): AsyncGenerator<SourceRecord> {
    const parser = new SaxesParser({ xmlns: false });
    const ready: SourceRecord[] = [];
    let offset = 0;
    let record: Record<string, unknown> | null = null;
    let depth = 0; // depth inside the record element (1 = the record itself)
    let field: string | null = null;
    let text = '';
    let size = 0;
    const grow = (n: number) => {
      size += n;
      if (size > limits.maxRecordBytes)
        throw new SourceFormatError(`an XML record is longer than ${limits.maxRecordBytes} bytes`);
    };
    const put = (name: string, value: string) => {
      const before = record![name];
      if (before === undefined) {
        if (Object.keys(record!).length >= limits.maxColumns) {
          throw new SourceFormatError(`an XML record has more than ${limits.maxColumns} fields`);
        }
        record![name] = value;
      } else record![name] = Array.isArray(before) ? [...before, value] : [before, value];
    };
    parser.on('doctype', () => {
      throw new SourceFormatError('XML: a DOCTYPE is refused (no DTD is read and no entity is expanded)');
    });
    parser.on('opentag', (tag) => {
      if (record) {
        depth++;
        if (depth === 2) {
          field = tag.name;
          text = '';
        }
        return;
      }
      if (tag.name !== recordElement) return;
      record = {};
      depth = 1;
      size = 0;
      for (const [k, v] of Object.entries(tag.attributes as Record<string, string>)) {
        grow(k.length + v.length);
        put(k, v);
      }
    });
    parser.on('text', (t) => {
      if (record && depth >= 2) {
        grow(t.length);
        text += t;
      }
    });
    parser.on('cdata', (t) => {
      if (record && depth >= 2) {
        grow(t.length);
        text += t;
      }
    });
    parser.on('closetag', () => {
      if (!record) return;
      if (depth === 2 && field !== null) {
        put(field, text.trim());
        field = null;
      }
      depth--;
      if (depth === 0) {
        ready.push({ offset: offset++, record, rawSha256: sha(JSON.stringify(record)) });
        record = null;
      }
    });
    const decoder = new TextDecoder(encoding === 'utf16le' ? 'utf-16le' : encoding === 'latin1' ? 'latin1' : 'utf-8');
    const feed = (s: string) => {
      try {
        parser.write(s);
      } catch (err) {
        throw err instanceof SourceFormatError ? err : new SourceFormatError(`XML: ${(err as Error).message}`);
      }
    };
    for await (const chunk of open()) {
      feed(decoder.decode(chunk as Buffer, { stream: true }));
      yield* ready.splice(0);
    }
    feed(decoder.decode());
    try {
      parser.close();
    } catch (err) {
      throw new SourceFormatError(`XML: ${(err as Error).message}`);
    }
    yield* ready.splice(0);
  };
  return { columns: [], records: records() };
}
