// The service-specific metrics land in their service's /metrics text with bounded labels.
import {
  aiBrokerUsage,
  eventConsumed,
  registerOcrQueueGauge,
  workflowExecutionEnded,
  workflowStepTimer,
} from '../../../platform/telemetry/domain-metrics';
import { metricsText } from '../../../platform/telemetry/metrics';

it('workflow executions and step latency, AI tokens/cost/failovers, consumer lag, the OCR queue', async () => {
  workflowExecutionEnded('completed');
  workflowExecutionEnded('failed');
  workflowStepTimer('ai')('ok');
  workflowStepTimer('action')('error');
  aiBrokerUsage({
    status: 'ok',
    model: 'extractive',
    promptTokens: 12,
    completionTokens: 30,
    cost: 0.25,
    attempts: [{ outcome: 'skipped' }, { outcome: 'error' }, { outcome: 'ok' }],
  });
  eventConsumed('packs-registry.rulepack-catalog.certified', new Date(Date.now() - 2000).toISOString());
  registerOcrQueueGauge(async () => ({ pending: 3, processing: 1 }));

  const workflow = (await metricsText('workflow')).body;
  expect(workflow).toMatch(/workflow_executions_total\{status="completed",service="workflow"\} 1/);
  expect(workflow).toMatch(/workflow_step_duration_seconds_count\{service="workflow",type="ai",outcome="ok"\} 1/);
  expect(workflow).toMatch(/ocr_queue_jobs\{status="pending"\} 3/); // a process gauge: every port serves it
  const ai = (await metricsText('ai-broker')).body;
  expect(ai).toMatch(/ai_broker_tokens_total\{model="extractive",kind="completion",service="ai-broker"\} 30/);
  expect(ai).toMatch(/ai_broker_cost_total\{model="extractive",service="ai-broker"\} 0.25/);
  // The skipped model was never tried: one failover, the error.
  expect(ai).toMatch(/ai_broker_failovers_total\{outcome="error",service="ai-broker"\} 1/);
  expect(ai).not.toMatch(/ai_broker_failovers_total\{outcome="skipped"/);
  const events = (await metricsText('events')).body;
  expect(events).toMatch(
    /events_consumer_lag_seconds_bucket\{le="5",service="events",subscription="packs-registry.rulepack-catalog.certified"\} 1/,
  );
});
