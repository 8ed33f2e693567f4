// XML: a document whose root holds the records. Refused before any parsing: a DOCTYPE or an ENTITY
// declaration anywhere (no entity expansion, "billion laughs", and no external entities, which
// could read files or reach the network). Then the document must be well formed, and nesting is
// bounded. Element text and attributes stay strings (a zip code "01234" keeps its zero; numeric
// text compares as a number anyway); attributes appear as "@name", an element's own text next to
// attributes or children as "#text", an empty element as "".
// Records: the repeated child elements of the root (<orders><order/><order/></orders> -> two
// records), else the root itself; `recordElement` names the record element explicitly.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { InputFormatError } from './input-format.error';
import type { InputOptions } from './input.options';

const DECLARATION = /<!\s*(DOCTYPE|ENTITY)/i;

const ATTRIBUTE_PREFIX = '@';
const TEXT = '#text';

function parser(maxDepth: number): XMLParser {
  return new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: ATTRIBUTE_PREFIX,
    textNodeName: TEXT,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    // Fixed tables only: XML's five predefined entities, character references (&#65; &#x42;) and
    // HTML's named ones (&nbsp;), which fast-xml-parser decodes together with the references.
    // Nothing a document declares: declarations are refused above.
    processEntities: true,
    htmlEntities: true,
    maxNestedTags: maxDepth,
  });
}

const isElementKey = (key: string): boolean => !key.startsWith(ATTRIBUTE_PREFIX) && key !== TEXT;

export function xmlRecords(payload: unknown, options: InputOptions): unknown[] {
  if (typeof payload !== 'string') throw new InputFormatError([], 'an XML payload is a string');
  const declaration = DECLARATION.exec(payload);
  if (declaration) throw new InputFormatError([], `XML ${declaration[1]!.toUpperCase()} declarations are not accepted`);
  const verdict = XMLValidator.validate(payload);
  if (verdict !== true)
    throw new InputFormatError(
      ['line', verdict.err.line],
      `XML is not well formed (line ${verdict.err.line}, column ${verdict.err.col}): ${verdict.err.msg}`,
    );
  let document: Record<string, unknown>;
  try {
    document = parser(options.maxXmlDepth).parse(payload) as Record<string, unknown>;
  } catch (err) {
    throw new InputFormatError([], `XML cannot be read: ${err instanceof Error ? err.message : String(err)}`);
  }
  const roots = Object.keys(document).filter(isElementKey);
  if (roots.length !== 1 || Array.isArray(document[roots[0]!]))
    throw new InputFormatError([], 'an XML payload has exactly one root element');
  const rootName = roots[0]!;
  const root = document[rootName];
  if (typeof root !== 'object' || root === null) return [root ?? ''];

  let records: unknown[];
  const children = root as Record<string, unknown>;
  if (options.recordElement !== undefined) {
    const chosen = Object.hasOwn(children, options.recordElement) ? children[options.recordElement] : undefined;
    records = chosen === undefined ? [] : Array.isArray(chosen) ? chosen : [chosen];
  } else {
    const repeated = Object.keys(children).filter((k) => isElementKey(k) && Array.isArray(children[k]));
    records = repeated.length === 1 ? (children[repeated[0]!] as unknown[]) : [root];
  }
  if (records.length > options.maxRecords)
    throw new InputFormatError(
      [],
      `the payload holds ${records.length} records; at most ${options.maxRecords} are validated in one run`,
    );
  return records;
}
