// The compatibility checker, rule by rule: each Confluent-style breaking change is reported in
// the mode it breaks (with the JSON pointer of the new version), and not in the mode it does not.
import { checkCompatibility, type CompatibilityMode } from '../../../subgraphs/schema-registry/schema-compatibility';

const person = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 100 },
    age: { type: 'integer', minimum: 0 },
    status: { enum: ['active', 'inactive'] },
  },
  required: ['name'],
};

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const change = (edit: (s: any) => void) => {
  const s = clone(person) as any;
  edit(s);
  return s;
};
const check = (mode: CompatibilityMode, previous: unknown, next: unknown) => checkCompatibility(mode, previous, next);

describe('identical and trivially wider schemas', () => {
  it.each(['BACKWARD', 'FORWARD', 'FULL', 'NONE'] as const)('%s: the same schema is compatible', (mode) => {
    expect(check(mode, person, clone(person))).toEqual({ compatible: true, reasons: [] });
  });

  it('annotations (title, description, examples, $comment) never matter', () => {
    const next = change((s) => {
      s.title = 'Person';
      s.properties.name.description = 'Full name';
      s.properties.age.examples = [42];
      s.$comment = 'edited';
    });
    expect(check('FULL', person, next).compatible).toBe(true);
  });

  it('NONE accepts anything', () => {
    expect(check('NONE', person, { type: 'string' })).toEqual({ compatible: true, reasons: [] });
  });
});

describe('BACKWARD (data valid under the previous version stays valid)', () => {
  it('adding a required property without a default is breaking, with its pointer', () => {
    const next = change((s) => {
      s.properties.email = { type: 'string' };
      s.required.push('email');
    });
    const r = check('BACKWARD', person, next);
    expect(r.compatible).toBe(false);
    expect(r.reasons.some((x) => x.startsWith("#/properties/email: required property 'email'"))).toBe(true);
  });

  it('adding a required property with a default is compatible (Confluent: the reader fills it in) in a closed model', () => {
    const closed = change((s) => {
      s.additionalProperties = false;
    });
    const next = change((s) => {
      s.additionalProperties = false;
      s.properties.email = { type: 'string', default: '' };
      s.required.push('email');
    });
    expect(check('BACKWARD', closed, next)).toEqual({ compatible: true, reasons: [] });
  });

  it('adding an optional property to a closed model is compatible, to an open model only with an empty schema', () => {
    const closed = change((s) => {
      s.additionalProperties = false;
    });
    const closedNext = change((s) => {
      s.additionalProperties = false;
      s.properties.nick = { type: 'string' };
    });
    expect(check('BACKWARD', closed, closedNext).compatible).toBe(true);

    const openNext = change((s) => {
      s.properties.nick = { type: 'string' };
    });
    const open = check('BACKWARD', person, openNext);
    expect(open.compatible).toBe(false);
    expect(open.reasons[0]).toMatch(/^#\/properties\/nick: type string in the new version rejects/);

    const openAny = change((s) => {
      s.properties.nick = { description: 'anything' };
    });
    expect(check('BACKWARD', person, openAny).compatible).toBe(true);
  });

  it('removing an enum value is breaking and names the value', () => {
    const next = change((s) => {
      s.properties.status.enum = ['active'];
    });
    const r = check('BACKWARD', person, next);
    expect(r.reasons).toEqual([
      '#/properties/status: "inactive" is accepted by the previous version but rejected by the new version',
    ]);
  });

  it('adding an enum value is compatible', () => {
    const next = change((s) => {
      s.properties.status.enum = ['active', 'inactive', 'suspended'];
    });
    expect(check('BACKWARD', person, next).compatible).toBe(true);
  });

  it('narrowing a type is breaking; widening is not', () => {
    const numberToInteger = check('BACKWARD', { type: 'number' }, { type: 'integer' });
    expect(numberToInteger.reasons).toEqual([
      '#: type integer in the new version rejects number values that the previous version accepts',
    ]);
    expect(check('BACKWARD', { type: 'integer' }, { type: 'number' }).compatible).toBe(true);
    expect(check('BACKWARD', { type: 'string' }, { type: ['string', 'null'] }).compatible).toBe(true);
    expect(check('BACKWARD', { type: ['string', 'null'] }, { type: 'string' }).reasons).toEqual([
      '#: type string in the new version rejects null values that the previous version accepts',
    ]);
  });

  it('lowering maxLength is breaking; raising it is not', () => {
    const lower = change((s) => {
      s.properties.name.maxLength = 50;
    });
    expect(check('BACKWARD', person, lower).reasons).toEqual([
      '#/properties/name: maxLength 50 in the new version rejects longer strings that the previous version accepts (the previous version: 100)',
    ]);
    const higher = change((s) => {
      s.properties.name.maxLength = 200;
    });
    expect(check('BACKWARD', person, higher).compatible).toBe(true);
  });

  it('closing additionalProperties is breaking', () => {
    const next = change((s) => {
      s.additionalProperties = false;
    });
    const r = check('BACKWARD', person, next);
    expect(r.reasons).toEqual([
      '#/additionalProperties: additionalProperties false in the new version rejects properties that the previous version accepts',
    ]);
  });

  it('removing a property from a closed model is breaking; from an open model it is not', () => {
    const closed = change((s) => {
      s.additionalProperties = false;
    });
    const closedWithout = change((s) => {
      s.additionalProperties = false;
      delete s.properties.age;
    });
    expect(check('BACKWARD', closed, closedWithout).reasons).toEqual([
      "#/properties/age: property 'age' is accepted by the previous version but not allowed by the new version",
    ]);
    const openWithout = change((s) => {
      delete s.properties.age;
    });
    expect(check('BACKWARD', person, openWithout).compatible).toBe(true);
  });

  it('numeric bounds: raising a minimum or making it exclusive is breaking, lowering it is not', () => {
    expect(
      check(
        'BACKWARD',
        person,
        change((s) => {
          s.properties.age.minimum = 18;
        }),
      ).reasons,
    ).toEqual([
      '#/properties/age: minimum 18 in the new version rejects numbers that the previous version accepts (the previous version: 0)',
    ]);
    expect(
      check(
        'BACKWARD',
        person,
        change((s) => {
          s.properties.age = { type: 'integer', exclusiveMinimum: 0 };
        }),
      ).compatible,
    ).toBe(false);
    expect(
      check(
        'BACKWARD',
        person,
        change((s) => {
          s.properties.age.minimum = -5;
        }),
      ).compatible,
    ).toBe(true);
    expect(check('BACKWARD', { type: 'number', maximum: 10 }, { type: 'number', maximum: 5 }).compatible).toBe(false);
    expect(check('BACKWARD', { type: 'number', multipleOf: 4 }, { type: 'number', multipleOf: 2 }).compatible).toBe(
      true,
    );
    expect(check('BACKWARD', { type: 'number', multipleOf: 2 }, { type: 'number', multipleOf: 4 }).compatible).toBe(
      false,
    );
  });

  it('strings: a new pattern or format is breaking (patterns are compared as text)', () => {
    expect(check('BACKWARD', { type: 'string' }, { type: 'string', pattern: '^a' }).reasons[0]).toMatch(
      /^#: pattern "\^a" in the new version differs/,
    );
    expect(check('BACKWARD', { type: 'string', pattern: '^a' }, { type: 'string', pattern: '^a' }).compatible).toBe(
      true,
    );
    expect(check('BACKWARD', { type: 'string', pattern: '^a' }, { type: 'string' }).compatible).toBe(true);
    expect(check('BACKWARD', { type: 'string' }, { type: 'string', format: 'email' }).compatible).toBe(false);
    expect(check('BACKWARD', { type: 'string', minLength: 1 }, { type: 'string', minLength: 2 }).compatible).toBe(
      false,
    );
  });

  it('arrays: item schemas, tuples and size limits', () => {
    const list = { type: 'array', items: { type: 'string', maxLength: 10 } };
    expect(check('BACKWARD', list, { type: 'array', items: { type: 'string', maxLength: 5 } }).reasons).toEqual([
      '#/items: maxLength 5 in the new version rejects longer strings that the previous version accepts (the previous version: 10)',
    ]);
    expect(check('BACKWARD', list, { ...list, maxItems: 3 }).compatible).toBe(false);
    expect(check('BACKWARD', list, { ...list, uniqueItems: true }).compatible).toBe(false);
    const tuple = { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] };
    expect(
      check('BACKWARD', tuple, { type: 'array', items: [{ type: 'string' }, { type: 'number' }] }).compatible,
    ).toBe(true);
    expect(
      check('BACKWARD', tuple, {
        type: 'array',
        items: [{ type: 'string' }, { type: 'integer' }],
        additionalItems: false,
      }).reasons[0],
    ).toMatch(/^#\/additionalItems: the new version accepts no value here/);
  });

  it('follows local $refs (definitions) and names the pointer inside the definition', () => {
    const prev = {
      definitions: { code: { type: 'string', maxLength: 8 } },
      type: 'object',
      properties: { a: { $ref: '#/definitions/code' } },
    };
    const next = {
      definitions: { code: { type: 'string', maxLength: 4 } },
      type: 'object',
      properties: { a: { $ref: '#/definitions/code' } },
    };
    expect(check('BACKWARD', prev, next).reasons).toEqual([
      '#/definitions/code: maxLength 4 in the new version rejects longer strings that the previous version accepts (the previous version: 8)',
    ]);
  });

  it('terminates on recursive schemas', () => {
    const tree = {
      definitions: {
        node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/definitions/node' } } } },
      },
      $ref: '#/definitions/node',
    };
    expect(check('FULL', tree, clone(tree)).compatible).toBe(true);
    const narrowed = clone(tree) as any;
    narrowed.definitions.node.properties.children.maxItems = 2;
    expect(check('BACKWARD', tree, narrowed).reasons).toEqual([
      '#/definitions/node/properties/children: maxItems 2 in the new version rejects longer arrays that the previous version accepts (the previous version: no limit)',
    ]);
  });

  it('anyOf: adding an alternative is compatible, removing one is breaking', () => {
    const two = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
    const three = { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] };
    expect(check('BACKWARD', two, three).compatible).toBe(true);
    expect(check('BACKWARD', three, two).reasons).toEqual([
      "#/anyOf: the previous version's anyOf alternative 2 fits no anyOf branch of the new version",
    ]);
    expect(check('BACKWARD', { type: 'string' }, two).compatible).toBe(true);
  });

  it('allOf on the new version: the previous schema must fit each branch', () => {
    expect(
      check('BACKWARD', { type: 'string', maxLength: 5 }, { allOf: [{ type: 'string' }, { maxLength: 10 }] })
        .compatible,
    ).toBe(true);
    expect(
      check('BACKWARD', { type: 'string', maxLength: 5 }, { allOf: [{ type: 'string' }, { maxLength: 3 }] }).compatible,
    ).toBe(false);
  });

  it('treats unknown keywords, not, if/then/else, propertyNames, contains and remote $refs conservatively', () => {
    expect(check('BACKWARD', { type: 'string' }, { type: 'string', 'x-rule': 1 }).reasons[0]).toMatch(
      /keyword 'x-rule' is not analysed/,
    );
    expect(check('BACKWARD', { type: 'string', 'x-rule': 1 }, { type: 'string', 'x-rule': 1 }).compatible).toBe(true);
    expect(check('BACKWARD', { type: 'string', 'x-rule': 1 }, { type: 'string' }).compatible).toBe(true);
    expect(check('BACKWARD', {}, { not: { type: 'null' } }).compatible).toBe(false);
    expect(check('BACKWARD', {}, { if: { type: 'string' }, then: { minLength: 1 } }).compatible).toBe(false);
    expect(check('BACKWARD', { type: 'object' }, { type: 'object', propertyNames: { maxLength: 3 } }).compatible).toBe(
      false,
    );
    expect(check('BACKWARD', { type: 'array' }, { type: 'array', contains: { type: 'string' } }).compatible).toBe(
      false,
    );
    expect(
      check('BACKWARD', { $ref: 'https://example.com/a.json' }, { $ref: 'https://example.com/b.json' }).reasons[0],
    ).toMatch(/cannot be resolved/);
    expect(
      check('BACKWARD', { $ref: 'https://example.com/a.json' }, { $ref: 'https://example.com/a.json' }).compatible,
    ).toBe(true);
  });

  it('boolean schemas', () => {
    expect(check('BACKWARD', true, false).reasons).toEqual([
      '#: the new version accepts no value here, the previous version does',
    ]);
    expect(check('BACKWARD', false, { type: 'string' }).compatible).toBe(true);
    expect(check('BACKWARD', { type: 'string' }, true).compatible).toBe(true);
  });

  it('a previous enum or boolean type is checked value by value against any new keyword', () => {
    expect(check('BACKWARD', { enum: ['a', 'bb'] }, { type: 'string', maxLength: 1 }).reasons).toEqual([
      '#: "bb" is accepted by the previous version but rejected by the new version',
    ]);
    expect(check('BACKWARD', { type: 'boolean' }, { enum: [true, false] }).compatible).toBe(true);
    expect(check('BACKWARD', { const: 3 }, { type: 'integer', minimum: 1 }).compatible).toBe(true);
  });
});

describe('FORWARD (data valid under the new version is valid under the previous one)', () => {
  it('adding an enum value is breaking', () => {
    const added = change((s) => {
      s.properties.status.enum = ['active', 'inactive', 'suspended'];
    });
    const r = check('FORWARD', person, added);
    expect(r.compatible).toBe(false);
    expect(r.reasons).toEqual([
      '#/properties/status: "suspended" is accepted by the new version but rejected by the previous version',
    ]);
  });

  it('adding a required property is compatible; removing a required one is breaking', () => {
    const addedRequired = change((s) => {
      s.properties.email = { type: 'string' };
      s.required.push('email');
    });
    // The previous version accepts any value for `email` (open model), so new data fits it.
    expect(check('FORWARD', person, addedRequired).compatible).toBe(true);
    const droppedRequired = change((s) => {
      s.required = [];
    });
    expect(check('FORWARD', person, droppedRequired).reasons).toEqual([
      "#/properties/name: required property 'name' in the previous version has no default, and the new version does not require it",
    ]);
  });

  it('narrowing is compatible, widening is breaking', () => {
    expect(
      check(
        'FORWARD',
        person,
        change((s) => {
          s.properties.name.maxLength = 50;
        }),
      ).compatible,
    ).toBe(true);
    expect(
      check(
        'FORWARD',
        person,
        change((s) => {
          s.properties.name.maxLength = 500;
        }),
      ).reasons,
    ).toEqual([
      '#/properties/name: maxLength 100 in the previous version rejects longer strings that the new version accepts (the new version: 500)',
    ]);
    expect(
      check(
        'FORWARD',
        person,
        change((s) => {
          s.additionalProperties = false;
        }),
      ).compatible,
    ).toBe(true);
  });
});

describe('FULL (both directions)', () => {
  it('only changes that neither narrow nor widen pass', () => {
    expect(
      check(
        'FULL',
        person,
        change((s) => {
          s.description = 'people';
        }),
      ).compatible,
    ).toBe(true);
    const narrowed = check(
      'FULL',
      person,
      change((s) => {
        s.properties.name.maxLength = 50;
      }),
    );
    expect(narrowed.compatible).toBe(false);
    expect(narrowed.reasons).toHaveLength(1);
    const widened = check(
      'FULL',
      person,
      change((s) => {
        s.properties.name.maxLength = 500;
      }),
    );
    expect(widened.reasons).toHaveLength(1);
    const both = check(
      'FULL',
      person,
      change((s) => {
        s.properties.status.enum = ['active', 'suspended'];
      }),
    );
    expect(both.reasons).toEqual([
      '#/properties/status: "inactive" is accepted by the previous version but rejected by the new version',
      '#/properties/status: "suspended" is accepted by the new version but rejected by the previous version',
    ]);
  });
});

describe('the platform contract', () => {
  it('the rule-pack schema is compatible with itself in every mode', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const rulePack = require('../../../platform/contracts/rule-pack.schema.json') as unknown;
    expect(check('FULL', rulePack, clone(rulePack))).toEqual({ compatible: true, reasons: [] });
  });
});
