import type { PartTypeRegistry } from '../parts/part-type-registry.ts';
import type { TurnStateRegistry } from '../turn-states/turn-state-registry.ts';

/** The name of the one output tool every actor is given. Reserved: no registered tool may use it. */
export const RESPOND_TOOL_NAME = 'respond';

/** A tool as the Anthropic Messages API takes it. */
export interface ModelToolSchema {
  readonly name: string;
  readonly description: string;
  readonly input_schema: Readonly<Record<string, unknown>>;
}

const RESPOND_DESCRIPTION =
  'Your only way to produce output. Everything a person or a peer agent should see goes here as ' +
  'typed parts; nothing you write outside this tool is delivered. Set turnState to say whether you ' +
  'are still working (awaiting) or done (complete, clarifying, error, passed).';

/** Part types the runtime creates itself or receives; an actor never emits them. */
const RUNTIME_ONLY_PART_TYPES: ReadonlySet<string> = new Set(['approval-response']);

/**
 * The respond() tool definition for the model, with the `partType` and `turnState` enums taken from
 * the registries at the time of the call (canonical plus consumer-registered).
 */
export function buildRespondTool(partTypes: PartTypeRegistry, turnStates: TurnStateRegistry): ModelToolSchema {
  const emittable = partTypes.ids().filter((id) => !RUNTIME_ONLY_PART_TYPES.has(id));
  return {
    name: RESPOND_TOOL_NAME,
    description: RESPOND_DESCRIPTION,
    input_schema: {
      type: 'object',
      required: ['parts', 'turnState'],
      additionalProperties: false,
      properties: {
        parts: {
          type: 'array',
          minItems: 1,
          description: 'One or more parts, each with text and/or data and a metadata.partType tag.',
          items: {
            type: 'object',
            required: ['metadata'],
            additionalProperties: false,
            properties: {
              text: { type: 'string' },
              data: { type: 'object' },
              metadata: {
                type: 'object',
                required: ['partType'],
                properties: {
                  partType: {
                    type: 'string',
                    enum: emittable,
                    description: 'What the part is: ack, thinking, response, clarify, error, or an envelope part.',
                  },
                },
              },
            },
          },
        },
        turnState: {
          type: 'string',
          enum: turnStates.ids(),
          description:
            'awaiting: more to come in this turn; complete: settled; clarifying: you asked a question; ' +
            'error: the turn failed; suspended: waiting on an approval; delegated: a peer agent works on it; ' +
            'passed: handed to the actor named in passTo.',
        },
        passTo: {
          type: 'string',
          description: 'Only with turnState "passed": the actor that takes the turn over, with the mailbox.',
        },
        note: { type: 'string', description: 'A note for the logs; never delivered.' },
      },
    },
  };
}
