// Text that cannot be stored as it was sent. PostgreSQL text and jsonb cannot hold NUL, and a
// lone UTF-16 surrogate has no UTF-8 form (it is stored as U+FFFD, or refused), so either would
// change between what a service checks or hashes and what the database keeps. This is the one
// check for it: the kernel's query/path/form guard, cursors and the ledger's domain use it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored as sent, or undefined when it can. */
export function unstorableText(text: string): 'nul' | 'surrogate' | undefined {
  if (text.includes('\u0000')) return 'nul';
  if (LONE_SURROGATE.test(text)) return 'surrogate';
  return undefined;
}
