// The broker's two tasks beyond free inference: explain a rule-validation failure (with a
// remediation when asked) and generate a workflow pack from a description. Both go through the
// same pipeline as inference (redaction both ways, routing with failover, audit); with the
// offline extractive model they are composed deterministically from the (redacted) request.
// A generated pack must pass the workflow-pack schema of the schema registry; a vendor's pack
// that does not is replaced by the offline one, and `model_used` says so.
import type { Caller } from '../../platform/auth/caller';
import { InputError, type InputIssue } from '../../platform/errors/domain-errors';
import type { AiBrokerService } from './ai-broker.service';
import type { Forwarding } from './ai-broker.types';
import type { Attempt } from './model-router';
import { offlineExplanation, offlineWorkflowPack } from './offline-composers';
import { EXTRACTIVE_MODEL_ID } from './providers/extractive.provider';
import type { WorkflowPackSchemaSource } from './workflow-pack.schema-source';

export interface ExplainResult {
  ruleId: string;
  explanation: string;
  remediation: string | null;
  modelUsed: string;
  tokensUsed: number;
  correlationId: string;
  attempts: Attempt[];
}

export interface GeneratedWorkflow {
  workflowPack: Record<string, unknown>;
  confidence: number;
  modelUsed: string;
  schemaSource: string;
  correlationId: string;
  attempts: Attempt[];
}

const REMEDIATION_MARK = 'Remediation:';

function firstJsonObject(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

export class AssistService {
  constructor(
    private readonly broker: AiBrokerService,
    private readonly schemas: WorkflowPackSchemaSource,
  ) {}

  async explain(
    caller: Caller,
    input: { ruleId?: unknown; failureData?: unknown; includeRemediation?: unknown },
  ): Promise<ExplainResult> {
    const tenantId = await this.broker.tenantFor(caller, 'write', 'ai.explain');
    const issues: InputIssue[] = [];
    if (input.ruleId === undefined || input.ruleId === null)
      issues.push({ loc: ['ruleId'], msg: 'Field required', type: 'missing' });
    else if (typeof input.ruleId !== 'string' || input.ruleId.length === 0 || input.ruleId.length > 200)
      issues.push({ loc: ['ruleId'], msg: 'Input should be a string of 1-200 characters', type: 'string_type' });
    if (input.failureData === undefined || input.failureData === null)
      issues.push({ loc: ['failureData'], msg: 'Field required', type: 'missing' });
    else if (typeof input.failureData !== 'object' || Array.isArray(input.failureData))
      issues.push({ loc: ['failureData'], msg: 'Input should be an object', type: 'dict_type' });
    if (
      input.includeRemediation !== undefined &&
      input.includeRemediation !== null &&
      typeof input.includeRemediation !== 'boolean'
    )
      issues.push({ loc: ['includeRemediation'], msg: 'Input should be a valid boolean', type: 'bool_type' });
    if (issues.length > 0) throw new InputError(issues);
    const remediation = input.includeRemediation === true;
    const session = this.broker.sessions(tenantId);
    const ruleId = session.input.text(input.ruleId as string);
    const failure = session.input.value(input.failureData as Record<string, unknown>);
    const offline = offlineExplanation(ruleId, failure, remediation);
    const prompt =
      `A record failed validation rule ${ruleId}. The failure data (JSON): ${JSON.stringify(failure).slice(0, 20_000)}\n` +
      'Explain in plain words why it failed.' +
      (remediation ? ` Then write a line starting with "${REMEDIATION_MARK}" saying how to fix the record.` : '');
    const r = await this.broker.task(
      caller,
      'explain',
      tenantId,
      prompt,
      () =>
        offline.remediation
          ? `${offline.explanation}\n${REMEDIATION_MARK} ${offline.remediation}`
          : offline.explanation,
      1024,
      session,
    );
    const at = r.text.indexOf(REMEDIATION_MARK);
    const explanation = (at >= 0 ? r.text.slice(0, at) : r.text).trim();
    const fix = remediation ? (at >= 0 ? r.text.slice(at + REMEDIATION_MARK.length).trim() : null) : null;
    return {
      ruleId,
      explanation,
      remediation: fix,
      modelUsed: r.model.id,
      tokensUsed: r.tokens,
      correlationId: caller.correlationId,
      attempts: r.attempts,
    };
  }

  async generateWorkflow(
    caller: Caller,
    input: { description?: unknown; domain?: unknown },
    forward: Forwarding = {},
  ): Promise<GeneratedWorkflow> {
    const tenantId = await this.broker.tenantFor(caller, 'write', 'ai.generate_workflow');
    const issues: InputIssue[] = [];
    if (input.description === undefined || input.description === null)
      issues.push({ loc: ['description'], msg: 'Field required', type: 'missing' });
    else if (
      typeof input.description !== 'string' ||
      input.description.trim().length === 0 ||
      input.description.length > 20_000
    )
      issues.push({
        loc: ['description'],
        msg: 'A description should be 1-20000 characters of text',
        type: 'string_type',
      });
    if (
      input.domain !== undefined &&
      input.domain !== null &&
      (typeof input.domain !== 'string' || input.domain.length > 100)
    )
      issues.push({ loc: ['domain'], msg: 'Input should be a string of at most 100 characters', type: 'string_type' });
    if (issues.length > 0) throw new InputError(issues);
    const session = this.broker.sessions(tenantId);
    const description = session.input.text(input.description as string);
    const domain = typeof input.domain === 'string' ? session.input.text(input.domain) : 'general';
    const schema = await this.schemas.current({ token: forward.token, tenantId, correlationId: caller.correlationId });
    const offline = offlineWorkflowPack(description, domain);
    const prompt =
      `Write a workflow pack as one JSON object for this ${domain} process: ${description}\n` +
      'It must have "metadata" {pack_id, version "1.0.0", workflow_type (legal|financial|compliance|risk|operational), name, description} and "steps": ' +
      'a list of {step (unique name), type (validation|ai|action|hil_approval), ...}: validation steps need rule_pack_id and rule_pack_version, action steps an action, ai steps a prompt. Answer with the JSON only.';
    const r = await this.broker.task(
      caller,
      'generate-workflow',
      tenantId,
      prompt,
      () => JSON.stringify(offline.pack),
      4096,
      session,
    );
    const candidate = firstJsonObject(r.text);
    if (r.model.id !== EXTRACTIVE_MODEL_ID && candidate !== undefined && schema.validate(candidate)) {
      return {
        workflowPack: candidate as Record<string, unknown>,
        confidence: 0.8,
        modelUsed: r.model.id,
        schemaSource: schema.source,
        correlationId: caller.correlationId,
        attempts: r.attempts,
      };
    }
    // The offline pack, checked like any other (it is valid by construction; a failure here is a bug).
    if (!schema.validate(offline.pack))
      throw new Error(`offline workflow pack fails the schema: ${JSON.stringify(schema.validate.errors?.slice(0, 3))}`);
    const attempts =
      r.model.id === EXTRACTIVE_MODEL_ID
        ? r.attempts
        : [
            ...r.attempts,
            {
              model: r.model.id,
              provider: r.model.provider,
              outcome: 'invalid_pack',
              reason: 'the answer did not pass the workflow-pack schema; the offline pack was used',
            },
          ];
    return {
      workflowPack: offline.pack,
      confidence: r.model.id === EXTRACTIVE_MODEL_ID ? offline.confidence : Math.min(offline.confidence, 0.4),
      modelUsed: EXTRACTIVE_MODEL_ID,
      schemaSource: schema.source,
      correlationId: caller.correlationId,
      attempts,
    };
  }
}
