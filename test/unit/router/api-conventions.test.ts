// Conventions every subgraph's part of the API keeps, checked on the composed API schema a
// frontend sees (supergraph.graphql), so a new service cannot break them unnoticed:
// - the token fixes the tenant, so no argument or input field named `tenantId` is required
//   (issue 15: "make tenant arguments optional everywhere in the GraphQL API");
// - enum values are upper case, whatever words the spec uses underneath.
import fs from 'node:fs';
import path from 'node:path';
import { isEnumType, isInputObjectType, isNonNullType, isObjectType } from 'graphql';
import { SupergraphModel } from '../../../router/supergraph/supergraph.model';

const schema = SupergraphModel.parse(
  fs.readFileSync(path.join(__dirname, '../../../supergraph.graphql'), 'utf8'),
).apiSchema;
const types = Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith('__'));

describe('the composed GraphQL API', () => {
  it("never requires a tenantId: arguments and input fields default to the caller's tenant", () => {
    const required: string[] = [];
    for (const type of types) {
      if (isObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          for (const arg of field.args)
            if (/^tenantId$/i.test(arg.name) && isNonNullType(arg.type) && arg.defaultValue === undefined)
              required.push(`${type.name}.${field.name}(${arg.name})`);
        }
      }
      if (isInputObjectType(type)) {
        for (const field of Object.values(type.getFields()))
          if (/^tenantId$/i.test(field.name) && isNonNullType(field.type) && field.defaultValue === undefined)
            required.push(`${type.name}.${field.name}`);
      }
    }
    expect(required).toEqual([]);
  });

  it('spells every enum value in upper case', () => {
    const lower: string[] = [];
    for (const type of types) {
      if (isEnumType(type))
        for (const value of type.getValues())
          if (value.name !== value.name.toUpperCase()) lower.push(`${type.name}.${value.name}`);
    }
    expect(lower).toEqual([]);
  });
});
