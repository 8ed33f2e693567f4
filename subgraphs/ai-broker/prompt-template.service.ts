// A tenant's prompt templates: list, read (newest or one version) and append a version. The
// checks of a template's text and variables are in prompt-template.rules.ts; rows in the store.
import type { Caller } from '../../platform/auth/caller';
import { NotFoundError } from '../../platform/errors/domain-errors';
import type { PromptTemplate } from './ai-broker.types';
import type { AiBrokerDeps } from './ai-broker.deps';
import type { BrokerAccess } from './broker-access';
import { echo } from './input-fields';
import { checkTemplate, TEMPLATE_ID, type TemplateInput } from './prompt-template.rules';

export class PromptTemplateService {
  constructor(
    private readonly deps: Pick<AiBrokerDeps, 'templates'>,
    private readonly access: BrokerAccess,
  ) {}

  async listTemplates(caller: Caller): Promise<PromptTemplate[]> {
    const tenantId = await this.access.tenantOf(caller, 'read', 'ai.prompts.list');
    return this.deps.templates.list(tenantId);
  }

  async getTemplate(caller: Caller, templateId: string, version?: number): Promise<PromptTemplate> {
    const tenantId = await this.access.tenantOf(caller, 'read', 'ai.prompts.get');
    return this.load(tenantId, templateId, version);
  }

  /** A new template, or the next version of the tenant's template with that id. */
  async createTemplate(caller: Caller, input: TemplateInput): Promise<PromptTemplate> {
    const tenantId = await this.access.tenantOf(caller, 'write', 'ai.prompts.create');
    const checked = checkTemplate(input);
    return this.deps.templates.append(tenantId, { ...checked, createdBy: caller.auth?.username ?? null });
  }

  /**
   * The tenant's template (newest, or `version`), for a read and for an inference that names one;
   * 404 otherwise. An id that cannot exist is not looked up (and is echoed redacted).
   */
  async load(tenantId: string, templateId: string, version?: number): Promise<PromptTemplate> {
    const t = TEMPLATE_ID.test(templateId) ? await this.deps.templates.get(tenantId, templateId, version) : null;
    if (!t)
      throw new NotFoundError(`Prompt template '${echo(templateId)}'${version ? ` version ${version}` : ''} not found`);
    return t;
  }
}
