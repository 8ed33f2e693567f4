// E-mail addresses. The local part is a run anchored by the lookbehind (scanned once, not from
// every position); the domain is dot-separated labels ending in an alphabetic top-level label.
// Not e-mail (issue 23): an scp-style git remote (`git@github.com:org/repo.git`: a colon and a
// path follow the host), URL user info (`ssh://git@host/...`), and retina asset names
// (`logo@2x.png`, `icon@3x.webp`: the "domain" is a scale and a file extension).
import type { PiiDetector } from './pii-detectors';

const EMAIL = /(?<![\p{L}\p{N}_.%+-])[\p{L}\p{N}_.%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/gu;
const FILE_EXTENSION = /\.(?:png|jpe?g|gif|webp|svg|ico|bmp|tiff?|heic|avif|pdf)$/i;
const SCALE = /^\d+(?:\.\d+)?x\./i;

export const emailDetector: PiiDetector<'email'> = {
  category: 'email',
  find(text, found) {
    const re = new RegExp(EMAIL);
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const value = m[0];
      const end = m.index + value.length;
      const at = value.indexOf('@');
      const domain = value.slice(at + 1);
      if (!/\.[A-Za-z]{2,}$/.test(domain)) continue;
      if (SCALE.test(domain) || FILE_EXTENSION.test(domain)) continue;
      // scp remote: host followed by ":" and a path; URL user info: "scheme://" just before.
      if (text.charCodeAt(end) === 58 /* : */ && end + 1 < text.length && !/\s/.test(text[end + 1]!)) continue;
      if (m.index >= 3 && text.startsWith('://', m.index - 3)) continue;
      found(m.index, end);
    }
  },
};
