// Each namespace's JSON Schema lives in the schema registry as `config.<namespace>` (its latest
// version applies); a bundle is checked against it before it is stored, and the 422 names the
// JSON pointer that failed. The `flags` namespace is flagd's flag-definition format, checked by
// flag.rules.ts instead. Compiled schemas are kept by fingerprint, so a new version is
// compiled once and an unchanged one never again.
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ServiceCallError, type ServiceCallContext } from '../../platform/clients/service-request';
import type { SchemaRegistryClient } from '../../platform/clients/schema-registry.client';
import { InputError, UnavailableError } from '../../platform/errors/domain-errors';

export interface NamespaceCheck {
  /** The schema version that accepted the content. */
  version: string;
}

export interface NamespaceSchemas {
  check(
    context: ServiceCallContext,
    namespace: string,
    content: unknown,
    field: (string | number)[],
  ): Promise<NamespaceCheck>;
}

export const schemaNameOf = (namespace: string) => `config.${namespace}`;

export function registryNamespaceSchemas(registry: Pick<SchemaRegistryClient, 'get'>): NamespaceSchemas {
  const ajv = new Ajv({ allErrors: false, strict: false });
  addFormats(ajv);
  const compiled = new Map<string, ValidateFunction>();
  return {
    async check(context, namespace, content, field) {
      const name = schemaNameOf(namespace);
      const view = await registry.get(context, name).catch((err: unknown) => {
        if (err instanceof ServiceCallError && err.status === 404)
          throw InputError.of(['body', 'namespace'], `No JSON Schema '${name}' is registered in the schema registry`);
        throw new UnavailableError('The schema registry is unavailable; the bundle was not stored');
      });
      const key = view.fingerprint ?? `${name}@${view.version}`;
      let validate = compiled.get(key);
      if (!validate) {
        validate = ajv.compile(view.schema);
        compiled.set(key, validate);
      }
      if (!validate(content)) {
        const e = validate.errors?.[0];
        const pointer = e?.instancePath || '/';
        throw InputError.of(
          [...field, pointer],
          `${e?.message ?? 'invalid'} (schema ${name}@${view.version})`,
          'value_error.schema',
        );
      }
      return { version: view.version };
    },
  };
}
