// Chunking (spec 02 rule 4): at most CHUNK_SIZE tokens, CHUNK_OVERLAP carried over, headings kept
// with their chunks as a path; HTML headings become Markdown ones first.
import { chunkText } from '../../../subgraphs/rag/ingestion/chunker';
import { htmlToText } from '../../../subgraphs/rag/ingestion/html-text';

const words = (n: number, prefix = 'w') => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');

test('a long section is cut into chunks of at most 512 tokens overlapping by 50', () => {
  const chunks = chunkText(`# Title\n${words(1200)}`);
  expect(chunks.length).toBe(3);
  for (const c of chunks) expect(c.tokenCount).toBeLessThanOrEqual(512);
  const first = chunks[0]!.content.split(' ');
  const second = chunks[1]!.content.split(' ');
  expect(second.slice(0, 50)).toEqual(first.slice(-50));
  expect(chunks.every((c) => c.heading === 'Title')).toBe(true);
  expect(chunks.map((c) => c.ord)).toEqual([0, 1, 2]);
});

test('headings split sections and are kept as a path; text before any heading has none', () => {
  const chunks = chunkText(
    'Intro text.\n\n# Policy\n## Travel\nBook economy.\n## Hotels\nUp to 180 euros.\n# Other\nMore.',
  );
  expect(chunks.map((c) => [c.heading, c.content])).toEqual([
    [null, 'Intro text.'],
    ['Policy > Travel', 'Book economy.'],
    ['Policy > Hotels', 'Up to 180 euros.'],
    ['Other', 'More.'],
  ]);
  expect(new Set(chunks.map((c) => c.contentHash)).size).toBe(4);
});

test('custom sizes, and an overlap as large as the chunk is refused', () => {
  const chunks = chunkText(words(100), 30, 10);
  expect(chunks.every((c) => c.tokenCount <= 30)).toBe(true);
  expect(chunks.length).toBe(5);
  expect(() => chunkText('a b c', 10, 10)).toThrow(/OVERLAP/);
});

test('HTML: scripts and styles dropped, headings become Markdown, entities decoded', () => {
  const text = htmlToText(
    '<html><head><style>p{}</style></head><body><h2>Rules &amp; rates</h2><p>Fees&nbsp;apply</p><script>evil()</script><ul><li>one</li></ul></body></html>',
  );
  expect(text).toBe('## Rules & rates\n\nFees apply\n\n- one');
  expect(chunkText(text)[0]!.heading).toBe('Rules & rates');
});
