// Charts where people would rather look than read: workflow outcomes per day, the OCR confidence
// distribution, and the ledger's growth. Each has a one-line text summary too.
import { useMemo } from 'react';
import { useQuery } from '@apollo/client/react';
import uPlot from 'uplot';
import { graphql } from '../gql';
import { Chart } from '../ui/chart';
import { ErrorNote, Loading } from '../ui/states';

// Three operations, each within the router's cost limit.
const RUNS = graphql(`
  query ChartWorkflowRuns {
    workflowExecutions(first: 200) {
      nodes {
        id
        status
        createdAt
      }
    }
  }
`);
const OCR = graphql(`
  query ChartOcrStats {
    ocrStats {
      totalJobs
      averageConfidence
      confidenceHistogram
    }
  }
`);
const LEDGER = graphql(`
  query ChartLedgerEvents {
    ledgerEvents(first: 1000) {
      totalCount
      nodes {
        id
        createdAt
      }
    }
  }
`);

const DAY = 86_400;
const OUTCOMES = [
  { status: 'COMPLETED', label: 'Completed', stroke: '#1a7f37' },
  { status: 'FAILED', label: 'Failed', stroke: '#b3261e' },
  { status: 'REJECTED', label: 'Rejected', stroke: '#8a4b00' },
] as const;

const axes = (x: string, y: string): uPlot.Axis[] => [
  { label: x, stroke: '#222' },
  { label: y, stroke: '#222' },
];

export function ChartsPage() {
  const runsQ = useQuery(RUNS);
  const ocrQ = useQuery(OCR);
  const ledgerQ = useQuery(LEDGER);
  const data = runsQ.data && ocrQ.data && ledgerQ.data ? { ...runsQ.data, ...ocrQ.data, ...ledgerQ.data } : undefined;
  const loading = runsQ.loading || ocrQ.loading || ledgerQ.loading;
  const error = runsQ.error ?? ocrQ.error ?? ledgerQ.error;
  const charts = useMemo(() => {
    if (!data) return undefined;
    const runs = data.workflowExecutions.nodes;
    const days = [...new Set(runs.map((r) => Math.floor(Date.parse(r.createdAt) / 1000 / DAY) * DAY))].sort(
      (a, b) => a - b,
    );
    const outcomes: uPlot.AlignedData = [
      days,
      ...OUTCOMES.map((o) =>
        days.map(
          (d) =>
            runs.filter((r) => r.status === o.status && Math.floor(Date.parse(r.createdAt) / 1000 / DAY) * DAY === d)
              .length,
        ),
      ),
    ];
    const hist = data.ocrStats.confidenceHistogram;
    const confidence: uPlot.AlignedData = [hist.map((_, i) => i * 10), hist];
    const times = data.ledgerEvents.nodes.map((e) => Date.parse(e.createdAt) / 1000).sort((a, b) => a - b);
    // The newest 1000 events: counted up to the chain's total.
    const before = (data.ledgerEvents.totalCount ?? times.length) - times.length;
    const growth: uPlot.AlignedData = [times, times.map((_, i) => before + i + 1)];
    return { runs, outcomes, confidence, hist, growth, times };
  }, [runsQ.data, ocrQ.data, ledgerQ.data]);
  const options = useMemo(
    () => ({
      outcomes: {
        series: [{}, ...OUTCOMES.map((o) => ({ label: o.label, stroke: o.stroke, width: 2 }))],
        axes: axes('day', 'executions'),
      },
      bars: {
        series: [
          { label: 'Confidence from %' },
          {
            label: 'Jobs',
            stroke: '#0b57d0',
            fill: 'rgba(11,87,208,0.3)',
            paths: uPlot.paths.bars!({ size: [0.8, 60] }),
          },
        ],
        scales: { x: { time: false } },
        axes: axes('confidence, %', 'jobs'),
      },
      growth: { series: [{}, { label: 'Events', stroke: '#6a1b9a', width: 2 }], axes: axes('time', 'events') },
    }),
    [],
  );
  if (loading && !data && !error)
    return (
      <>
        <h1>Charts</h1>
        <Loading what="chart data" />
      </>
    );
  return (
    <>
      <h1>Charts</h1>
      <ErrorNote error={error} />
      {charts && (
        <div className="charts">
          <Chart
            title="Workflow outcomes per day"
            summary={`${charts.runs.length} executions: ${OUTCOMES.map((o) => `${charts.runs.filter((r) => r.status === o.status).length} ${o.label.toLowerCase()}`).join(', ')}.`}
            options={options.outcomes}
            data={charts.outcomes}
          />
          <Chart
            title="OCR confidence distribution"
            summary={`${charts.hist.reduce((a, b) => a + b, 0)} documents read; average confidence ${data?.ocrStats.averageConfidence === null || data?.ocrStats.averageConfidence === undefined ? '—' : `${Math.round(data.ocrStats.averageConfidence * 100)}%`}.`}
            options={options.bars}
            data={charts.confidence}
          />
          <Chart
            title="Ledger growth"
            summary={`${data?.ledgerEvents.totalCount ?? charts.times.length} events in the chain.`}
            options={options.growth}
            data={charts.growth}
          />
        </div>
      )}
    </>
  );
}
