// A ZIP archive read with bounds, for the formats that are ZIP containers (XLSX): the central
// directory is read once with yauzl (at most `maxEntries` entries; a name listed twice is refused,
// so which copy is read is never ambiguous), and an entry is inflated only when its declared size
// is within `maxEntryBytes` and its declared compression ratio within `maxRatio`; while it is
// inflated, the bytes are counted against both again (yauzl also checks them against the declared
// size), so an entry that lies in its header is cut off as soon as it exceeds what it declared.
// Entry names are only ever compared with the names a format expects: none becomes a path.
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import type { ArchiveLimits } from './pipeline.types';
import { SourceFormatError } from './source-format';

/** INGESTION_MAX_ARCHIVE_ENTRIES (10,000), INGESTION_MAX_INFLATED_BYTES (1 GiB), INGESTION_MAX_INFLATE_RATIO (100). */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxEntries: 10_000,
  maxEntryBytes: 1024 * 1024 * 1024,
  maxRatio: 100,
};

/** Below this many inflated bytes the ratio is not checked: a small entry cannot hurt, and tiny XML parts compress well. */
const RATIO_FLOOR = 1024 * 1024;

export class ZipArchive {
  private constructor(
    private readonly zip: ZipFile,
    private readonly entries: Map<string, Entry>,
    private readonly limits: ArchiveLimits,
    private readonly label: string,
  ) {}

  /** Reads the archive's directory; a file that is not a ZIP, or lists too many entries, fails here. */
  static async open(file: string, limits: ArchiveLimits, label: string): Promise<ZipArchive> {
    let zip: ZipFile;
    try {
      zip = await yauzl.openPromise(file, { autoClose: false, validateEntrySizes: true, strictFileNames: false });
    } catch (err) {
      throw new SourceFormatError(`${label}: not a readable ZIP container (${(err as Error).message})`);
    }
    try {
      if (zip.entryCount > limits.maxEntries) {
        throw new SourceFormatError(
          `${label}: the archive lists ${zip.entryCount} entries; at most ${limits.maxEntries} are read`,
        );
      }
      const entries = new Map<string, Entry>();
      for await (const entry of zip.eachEntry()) {
        if (entries.has(entry.fileName)) throw new SourceFormatError(`${label}: an entry name is listed twice`);
        entries.set(entry.fileName, entry);
      }
      return new ZipArchive(zip, entries, limits, label);
    } catch (err) {
      zip.close();
      throw err instanceof SourceFormatError
        ? err
        : new SourceFormatError(`${label}: not a readable ZIP container (${(err as Error).message})`);
    }
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The inflated bytes of an entry, chunk by chunk, within the archive limits. */
  async *chunks(name: string): AsyncGenerator<Buffer> {
    const entry = this.entries.get(name);
    if (!entry) throw new SourceFormatError(`${this.label}: the part ${name.slice(0, 200)} is missing`);
    const { maxEntryBytes, maxRatio } = this.limits;
    const refuse = (why: string) =>
      new SourceFormatError(`${this.label}: the part ${name.slice(0, 200)} is refused: ${why} (a zip bomb?)`);
    if (entry.uncompressedSize > maxEntryBytes)
      throw refuse(`it inflates to ${entry.uncompressedSize} bytes; at most ${maxEntryBytes} are read`);
    if (entry.uncompressedSize > RATIO_FLOOR && entry.uncompressedSize > entry.compressedSize * maxRatio)
      throw refuse(`its compression ratio is over ${maxRatio}:1`);
    let stream;
    try {
      stream = await this.zip.openReadStreamPromise(entry);
    } catch (err) {
      throw new SourceFormatError(
        `${this.label}: the part ${name.slice(0, 200)} cannot be read (${(err as Error).message})`,
      );
    }
    let inflated = 0;
    try {
      for await (const chunk of stream) {
        inflated += (chunk as Buffer).length;
        if (inflated > maxEntryBytes) throw refuse(`it inflates past ${maxEntryBytes} bytes`);
        if (inflated > RATIO_FLOOR && inflated > entry.compressedSize * maxRatio)
          throw refuse(`its compression ratio is over ${maxRatio}:1`);
        yield chunk as Buffer;
      }
    } catch (err) {
      if (err instanceof SourceFormatError) throw err;
      throw new SourceFormatError(
        `${this.label}: the part ${name.slice(0, 200)} cannot be read (${(err as Error).message})`,
      );
    } finally {
      stream.destroy();
    }
  }

  close(): void {
    this.zip.close();
  }
}
