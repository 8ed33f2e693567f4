// OCR review: a job awaiting review, its pages' text beside its extracted fields, low-confidence
// pages and fields marked; the correction submitted here is what the job (GET /jobs/{id}) and the
// cache serve afterwards. The API keeps no page image and no per-word confidence (OcrPage has a
// page's text and confidence), so marking is per page and per field.
import { useState } from 'react';
import { useMutation, useQuery } from '@apollo/client/react';
import { graphql } from '../gql';
import type { OcrReviewQueueQuery } from '../gql/graphql';
import { Empty, ErrorNote, Loading, when } from '../ui/states';

/** Below this a page or field is marked (the service flags a job for review under 0.85). */
const LOW = 0.85;

const QUEUE = graphql(`
  query OcrReviewQueue {
    ocrReviewQueue(limit: 50) {
      id
      filename
      mimeType
      status
      confidenceScore
      extractedText
      extractedFields
      notes
      createdAt
      pages {
        page
        text
        confidence
        source
      }
    }
  }
`);

const REVIEW = graphql(`
  mutation ReviewOcrJob($id: ID!, $input: OcrReviewInput!) {
    reviewOcrJob(id: $id, input: $input) {
      id
      status
      extractedText
      confidenceScore
    }
  }
`);

type Job = OcrReviewQueueQuery['ocrReviewQueue'][number];
type Field = { value: string; confidence: number };

function fieldsOf(raw: unknown): [string, Field][] {
  if (!raw || typeof raw !== 'object') return [];
  return Object.entries(raw as Record<string, unknown>).filter((e): e is [string, Field] => {
    const v = e[1] as Field | null;
    return !!v && typeof v === 'object' && !Array.isArray(v) && typeof v.value === 'string';
  });
}

const pct = (c: number | null | undefined) => (c === null || c === undefined ? '—' : `${Math.round(c * 100)}%`);

function Review({ job, onDone }: { job: Job; onDone(status: string): void }) {
  const [text, setText] = useState(job.extractedText ?? '');
  const [fields, setFields] = useState(() =>
    Object.fromEntries(fieldsOf(job.extractedFields).map(([k, v]) => [k, v.value])),
  );
  const [review, { loading, error }] = useMutation(REVIEW);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const correctedFields = Object.fromEntries(
      Object.entries(fields).map(([k, v]) => [k, { value: v, confidence: 1 }]),
    );
    const result = await review({
      variables: { id: job.id, input: { correctedText: text, correctedFields, confidenceAfterReview: 1 } },
    }).catch(() => undefined);
    if (result?.data) onDone(result.data.reviewOcrJob.status);
  };
  const original = fieldsOf(job.extractedFields);
  return (
    <form className="ocr card" onSubmit={submit} aria-labelledby={`job-${job.id}`}>
      <h2 id={`job-${job.id}`}>{job.filename ?? job.id}</h2>
      <p className="muted">
        Confidence {pct(job.confidenceScore)} · {job.mimeType} · received {when(job.createdAt)}
      </p>
      <div className="split">
        <section aria-label="Pages as read">
          <h3>Pages as read</h3>
          {job.pages.map((p) => (
            <figure key={p.page} className={p.confidence < LOW ? 'page low' : 'page'}>
              <figcaption>
                Page {p.page} · {p.source} · {pct(p.confidence)}
                {p.confidence < LOW && <strong className="flag"> low confidence</strong>}
              </figcaption>
              <pre tabIndex={0} role="region" aria-label={`Text of page ${p.page}`}>
                {p.text}
              </pre>
            </figure>
          ))}
          {job.notes.length > 0 && (
            <ul className="muted">
              {job.notes.map((n, i) => (
                <li key={i}>{n}</li>
              ))}
            </ul>
          )}
        </section>
        <section aria-label="Correction">
          <h3>Correction</h3>
          <label htmlFor={`text-${job.id}`}>Corrected text</label>
          <textarea id={`text-${job.id}`} value={text} onChange={(e) => setText(e.target.value)} rows={8} />
          {original.map(([name, f]) => (
            <div key={name} className={f.confidence < LOW ? 'field low' : 'field'}>
              <label htmlFor={`f-${job.id}-${name}`}>
                {name} ({pct(f.confidence)}
                {f.confidence < LOW ? ', low confidence' : ''})
              </label>
              <input
                id={`f-${job.id}-${name}`}
                value={fields[name] ?? ''}
                onChange={(e) => setFields({ ...fields, [name]: e.target.value })}
              />
            </div>
          ))}
          <button type="submit" disabled={loading}>
            Submit correction
          </button>
          <ErrorNote error={error} />
        </section>
      </div>
    </form>
  );
}

export function OcrPage() {
  // The API has no subscription for the review queue: a job reaches it when its reading ends,
  // possibly after this page loaded, so the page asks again every few seconds.
  const { data, loading, error, refetch } = useQuery(QUEUE, { pollInterval: 5000 });
  // The notice lives here, not in the job's form: the refetch that follows a correction removes
  // the job from the queue, and the form (with anything it showed) with it.
  const [saved, setSaved] = useState<string | null>(null);
  const jobs = data?.ocrReviewQueue ?? [];
  const done = (status: string) => {
    setSaved(`Saved: the job is ${status}.`);
    void refetch();
  };
  return (
    <>
      <h1>OCR review</h1>
      <ErrorNote error={error} />
      {saved && <p role="status">{saved}</p>}
      {loading && !data ? (
        <Loading what="the review queue" />
      ) : jobs.length === 0 ? (
        <Empty>No document is waiting for review.</Empty>
      ) : (
        jobs.map((j) => <Review key={j.id} job={j} onDone={done} />)
      )}
    </>
  );
}
