// Chunking (spec 02 rule 4): at most CHUNK_SIZE tokens per chunk with CHUNK_OVERLAP tokens carried
// over from the previous chunk of the same section; headings preserved: Markdown headings (HTML's
// become Markdown first) split the text into sections, and each chunk keeps its heading path
// ("Policy > Travel") in `heading`. A token here is a whitespace-separated word, the unit the
// limits are counted in (a model tokenizer would give a few more per word).
import { createHash } from 'node:crypto';

export interface Chunk {
  ord: number;
  content: string;
  heading: string | null;
  tokenCount: number;
  contentHash: string;
}

interface Section {
  heading: string | null;
  words: string[];
}

function sections(text: string): Section[] {
  const out: Section[] = [];
  const path: string[] = [];
  let current: Section = { heading: null, words: [] };
  for (const line of text.split(/\r?\n/)) {
    const h = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (h) {
      if (current.words.length > 0) out.push(current);
      const level = h[1]!.length;
      path.length = Math.min(path.length, level - 1);
      path[level - 1] = h[2]!;
      current = { heading: path.filter(Boolean).join(' > '), words: [] };
      continue;
    }
    const words = line.split(/\s+/).filter(Boolean);
    // Keep paragraph breaks as a marker word so a chunk reads as written.
    if (words.length === 0 && current.words.length > 0 && current.words[current.words.length - 1] !== '\n\n')
      current.words.push('\n\n');
    else current.words.push(...words);
  }
  if (current.words.length > 0) out.push(current);
  return out;
}

const join = (words: string[]) =>
  words
    .join(' ')
    .replace(/ ?\n\n ?/g, '\n\n')
    .trim();

export function chunkText(text: string, size = 512, overlap = 50): Chunk[] {
  if (overlap >= size) throw new Error('CHUNK_OVERLAP must be smaller than CHUNK_SIZE');
  const chunks: Chunk[] = [];
  for (const section of sections(text)) {
    const words = section.words;
    const count = (from: number, to: number) => words.slice(from, to).filter((w) => w !== '\n\n').length;
    let start = 0;
    while (start < words.length) {
      // Extend to `size` real words (paragraph markers do not count).
      let end = start;
      let n = 0;
      while (end < words.length && n < size) {
        if (words[end] !== '\n\n') n++;
        end++;
      }
      const content = join(words.slice(start, end));
      if (content) {
        chunks.push({
          ord: chunks.length,
          content,
          heading: section.heading,
          tokenCount: count(start, end),
          contentHash: createHash('sha256')
            .update(`${section.heading ?? ''}\n${content}`)
            .digest('hex'),
        });
      }
      if (end >= words.length) break;
      // Step back `overlap` real words.
      let back = end;
      let k = 0;
      while (back > start + 1 && k < overlap) {
        back--;
        if (words[back] !== '\n\n') k++;
      }
      start = back;
    }
  }
  return chunks;
}
