// E-mail addresses. Found from each "@" (text without one costs one indexOf): the local part is
// the run of local-part characters just before it, the domain dot-separated labels after it
// ending in an alphabetic top-level label.
// Not e-mail (issue 23): an scp-style git remote (`git@github.com:org/repo.git`: a colon and a
// path follow the host), URL user info (`ssh://git@host/...`), and retina asset names
// (`logo@2x.png`, `icon@3x.webp`: the "domain" is a scale and a file extension).
import type { PiiDetector } from './pii-detectors';

const DOMAIN = /[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/y;
const LOCAL = /[\p{L}\p{N}_.%+-]/u;
const FILE_EXTENSION = /\.(?:png|jpe?g|gif|webp|svg|ico|bmp|tiff?|heic|avif|pdf)$/i;
const SCALE = /^\d+(?:\.\d+)?x\./i;

function isLocalChar(code: number, ch: string): boolean {
  // ASCII fast path; other letters and digits (jürgen@...) through the Unicode class.
  if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57)) return true;
  if (code === 95 || code === 46 || code === 37 || code === 43 || code === 45) return true;
  return code > 127 && LOCAL.test(ch);
}

export const emailDetector: PiiDetector<'email'> = {
  category: 'email',
  find(text, found) {
    const domain = new RegExp(DOMAIN);
    let lastEnd = 0;
    for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
      let start = at;
      while (start > lastEnd && isLocalChar(text.charCodeAt(start - 1), text[start - 1]!)) start--;
      if (start === at) continue;
      domain.lastIndex = at + 1;
      const d = domain.exec(text);
      if (d === null) continue;
      const end = at + 1 + d[0].length;
      if (!/\.[A-Za-z]{2,}$/.test(d[0]) || SCALE.test(d[0]) || FILE_EXTENSION.test(d[0])) continue;
      // scp remote: host followed by ":" and a path; URL user info: "scheme://" just before.
      if (text.charCodeAt(end) === 58 /* : */ && end + 1 < text.length && !/\s/.test(text[end + 1]!)) continue;
      if (start >= 3 && text.startsWith('://', start - 3)) continue;
      found(start, end);
      lastEnd = end;
      at = end - 1;
    }
  },
};
