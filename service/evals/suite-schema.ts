/** The JSON Schema of an eval suite file (see `suite-types.ts`), checked when the suite is read. */

const OBJECT = { type: 'object' };

const STEP = {
  description: 'a step: { call, input }, { respond: { parts, turnState } }, { answer }, or a list of these for one response',
  oneOf: [
    { type: 'object', additionalProperties: false, required: ['call'], properties: { call: { type: 'string', minLength: 1 }, input: OBJECT } },
    {
      type: 'object',
      additionalProperties: false,
      required: ['respond'],
      properties: {
        respond: {
          type: 'object',
          additionalProperties: false,
          required: ['parts', 'turnState'],
          properties: {
            parts: {
              type: 'array',
              items: { type: 'object', additionalProperties: false, required: ['partType'], properties: { partType: { type: 'string' }, text: { type: 'string' }, data: OBJECT } },
            },
            turnState: { type: 'string' },
            passTo: { type: 'string' },
            note: { type: 'string' },
          },
        },
      },
    },
    { type: 'object', additionalProperties: false, required: ['answer'], properties: { answer: { type: 'string' } } },
    { type: 'array', minItems: 1, items: { type: 'object' } },
  ],
};

const NAME_OR_OBJECT = (object: Record<string, unknown>): Record<string, unknown> => ({ oneOf: [{ type: 'string', minLength: 1 }, object] });

const TEXT = NAME_OR_OBJECT({ type: 'object', additionalProperties: false, required: ['text'], properties: { text: { type: 'string' }, partType: { type: 'string' } } });

const EXPECTATION = {
  type: 'object',
  description: 'one of toolCalled, toolNotCalled, approvalRequested, noApproval, part, noPart, textContains, textNotContains, turnState',
  minProperties: 1,
  maxProperties: 1,
  additionalProperties: false,
  properties: {
    toolCalled: NAME_OR_OBJECT({ type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string' }, args: OBJECT } }),
    toolNotCalled: { type: 'string' },
    approvalRequested: { oneOf: [{ type: 'string' }, { type: 'boolean', const: true }] },
    noApproval: { type: 'boolean', const: true },
    part: { type: 'string' },
    noPart: { type: 'string' },
    textContains: TEXT,
    textNotContains: TEXT,
    turnState: { type: 'string' },
  },
};

/** The schema of a suite file. */
export const SUITE_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['cases'],
  properties: {
    suite: { type: 'string' },
    app: { type: 'string' },
    cases: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'expect'],
        properties: {
          name: { type: 'string', minLength: 1 },
          model: { enum: ['scripted', 'live'] },
          fixture: { type: 'string' },
          turns: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['message'],
              properties: { message: { type: 'string' }, script: { type: 'array', items: STEP }, approve: { enum: ['granted', 'denied'] } },
            },
          },
          channel: { type: 'string' },
          from: { type: 'string' },
          live: { type: 'array', items: { type: 'string' } },
          results: OBJECT,
          expect: { type: 'array', minItems: 1, items: EXPECTATION },
        },
      },
    },
  },
};
