// `npm run bench -- redaction [megabytes]`: the PII detectors (issue 23) against the ones they
// replaced, in the same run. Prints numbers; passes or fails on nothing.
//  1. Accuracy on the labelled set's held-out split (never tuned on) and its dev split, scored by
//     what would reach the vendor (test/fixtures/pii/pii-vendor-score.ts): recall and precision
//     per category, old detectors beside new.
//  2. Throughput (MB/s, one core) of the broker's redactor (five categories) and the default one
//     (four, validation's) over two corpora of `megabytes` MB (default 4):
//     - prompts: business prose (policies, summaries, dates, amounts, order and version numbers)
//       with one labelled sentence in every eight, the way PII sits in real prompts;
//     - dense: the labelled sentences alone, back to back (a value or a decoy every ~80 bytes).
import { performance } from 'node:perf_hooks';
import {
  BUILT_IN_DETECTORS,
  clearPhoneVerdicts,
  createRedactor,
  EXTENDED_DETECTORS,
  mask,
  type PiiDetector,
} from '../platform/redaction';
import { loadSplit, scoreVendorView, type SplitItem } from '../test/fixtures/pii/pii-vendor-score';
import { LEGACY_EXTENDED_DETECTORS } from './redaction-legacy.support';

const fmt = (n: number, digits = 3) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const PROSE = [
  'Summarise the attached policy in three bullet points for the credit committee.',
  'The approval rule for wire transfers above 10,000 USD requires a second approver since 2024-03-01.',
  'Draft a polite reply explaining that the claim is still under review and will be decided within 15 business days.',
  'Translate the following paragraph into German, keeping the legal terms as they are.',
  'Our Q3 revenue grew 12.5% to EUR 4.2 million; operating costs rose by 3.1%.',
  'Please classify the ticket below as billing, technical or account access.',
  'Order 48213 shipped on 17/05/2024 and invoice INV-2024-0193 is due in 30 days.',
  'The patient was advised to repeat the blood test in 6 weeks and to reduce salt intake.',
  'Version 2.14.4 of the mobile app fixes the crash on upload reported by 312 users.',
  'Explain the difference between a fixed-rate and a variable-rate mortgage in plain language.',
  'The employee handbook section 4.2 covers remote work, travel expenses and overtime.',
  'List the documents a tenant must provide for the rental application.',
  'Die Kundin bittet um eine schriftliche Bestätigung der Kündigung zum 31.12.2024.',
  'Le dossier a été transmis au service juridique le 3 mars ; merci de vérifier les pièces jointes.',
  'El cliente solicita la devolución del importe cobrado dos veces en marzo.',
  'Il contratto prevede un periodo di prova di 90 giorni e un preavviso di 30 giorni.',
  'De klant wil weten waarom de premie dit jaar met 8 procent is gestegen.',
  'Meeting moved to 14:30 UTC; room 1204, budget USD 48,000 approved by finance.',
  'Rewrite this so that a customer without a finance background understands it.',
  'Check whether the contract clause 7.3 conflicts with the data processing agreement.',
];

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function corpora(items: SplitItem[], bytes: number): { prompts: string; dense: string } {
  const rand = prng(23);
  const parts: string[] = [];
  let size = 0;
  let k = 0;
  while (size < bytes) {
    const s =
      k++ % 8 === 7 ? items[Math.floor(rand() * items.length)]!.text : PROSE[Math.floor(rand() * PROSE.length)]!;
    parts.push(s);
    size += s.length + 1;
  }
  const dense = items.map((i) => i.text).join('\n');
  return {
    prompts: parts.join(k % 3 === 0 ? '\n' : ' '),
    dense: dense.repeat(Math.ceil(bytes / dense.length)).slice(0, bytes),
  };
}

function rate(detectors: readonly PiiDetector[], text: string): number {
  const r = createRedactor({ detectors, strategies: { mask } });
  r.redactText(text.slice(0, 200_000)); // warm-up
  const mb = Buffer.byteLength(text) / 1024 / 1024;
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    // Each pass starts with no remembered phone verdicts; within a pass, a number the corpus
    // repeats is remembered (as in service: the map is bounded, 4,096 entries).
    clearPhoneVerdicts();
    const t = performance.now();
    r.redactText(text);
    best = Math.min(best, performance.now() - t);
  }
  return mb / (best / 1000);
}

export async function run(args: string[]): Promise<void> {
  const megabytes = Number(args[0] ?? 4);
  const heldout = loadSplit('heldout');
  const dev = loadSplit('dev');
  console.log(
    `Redaction bench (Node ${process.version}, one core). Labelled set: held-out ${heldout.length} items (${heldout.reduce((a, i) => a + i.pii.length, 0)} values, ${heldout.filter((i) => i.pii.length === 0).length} decoy-only), dev ${dev.length} items`,
  );
  for (const [name, items] of [
    ['held-out', heldout],
    ['dev', dev],
  ] as const) {
    const before = scoreVendorView(LEGACY_EXTENDED_DETECTORS, items);
    const after = scoreVendorView(EXTENDED_DETECTORS, items);
    console.log(`\n1. ${name} split, scored by what reaches the vendor`);
    console.log('   | category | labelled | recall old | recall new | precision old | precision new |');
    console.log('   |---|---|---|---|---|---|');
    for (const c of ['ssn', 'card', 'email', 'phone', 'address']) {
      const o = before.perCategory[c];
      const n = after.perCategory[c];
      console.log(
        `   | ${c} | ${n?.labelled ?? 0} | ${fmt(o?.recall ?? 1)} | ${fmt(n?.recall ?? 1)} | ${fmt(o?.precision ?? 1)} | ${fmt(n?.precision ?? 1)} |`,
      );
    }
    console.log(
      `   | overall | ${after.overall.labelled} | ${fmt(before.overall.recall)} | ${fmt(after.overall.recall)} | ${fmt(before.overall.precision)} | ${fmt(after.overall.precision)} |`,
    );
    if (name === 'held-out')
      for (const m of after.mistakes) console.log(`   new ${m.kind} ${m.category}: "${m.span}" in "${m.text}"`);
  }
  const { prompts, dense } = corpora([...heldout, ...dev], megabytes * 1024 * 1024);
  console.log(`\n2. Throughput, MB/s on one core (best of 3 over ${megabytes} MB)`);
  console.log(
    '   | corpus | old, 5 categories | new, 5 categories (broker) | new, 4 categories (default, validation) |',
  );
  console.log('   |---|---|---|---|');
  for (const [name, text] of [
    ['prompts (1 labelled sentence in 8)', prompts],
    ['dense (labelled sentences only)', dense],
  ] as const) {
    console.log(
      `   | ${name} | ${fmt(rate(LEGACY_EXTENDED_DETECTORS, text), 1)} | ${fmt(rate(EXTENDED_DETECTORS, text), 1)} | ${fmt(rate(BUILT_IN_DETECTORS, text), 1)} |`,
    );
  }
}
