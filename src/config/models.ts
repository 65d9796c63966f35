/**
 * switchboard's own model defaults. An actor's YAML may name another model; these apply when it
 * names none. A test checks both against the Anthropic SDK's model list and its deprecation list.
 */

/** Model of an actor whose YAML names none: `claude-sonnet-5-5`. */
export const DEFAULT_ACTOR_MODEL = 'claude-sonnet-5-5';

/** Model used to translate messages between the user's language and the actor's: `claude-haiku-5-5`. */
export const DEFAULT_TRANSLATOR_MODEL = 'claude-haiku-5-5';
