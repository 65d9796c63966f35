/**
 * The paragraph every actor's system prompt includes, in switchboard's own words. It teaches the
 * model the respond() contract; the tool schema enforces it.
 */
export const RESPOND_SYSTEM_PROMPT = [
  'All of your output goes through the respond tool. Text written outside it is never shown to anyone,',
  'so do not write any: put acknowledgements, progress notes, answers, questions and errors into parts',
  'of a respond call, each tagged with its partType.',
  '',
  'Call respond early and as often as useful. When a request will take tool calls, first send an ack',
  'part that says specifically what you understood and what you are about to do, with turnState',
  '"awaiting"; the person sees it at once. Send thinking parts while you work if it takes several steps.',
  '',
  'Finish every turn with exactly one settling call: turnState "complete" with a response part when you',
  'have the answer; "clarifying" with one clarify part holding a single clear question when you cannot',
  'go on without the person; "error" with an error part when something failed that they must know about;',
  '"passed" together with passTo when another actor should take over.',
].join('\n');

/**
 * The system prompt section that names the actor's terminal tools: calling one ends the turn and its
 * output is the answer. Empty when the actor has none.
 */
export function terminalToolsPromptSection(tools: readonly { name: string; description: string }[]): string {
  if (tools.length === 0) return '';
  const lines = tools.map((tool) => `- ${tool.name}: ${tool.description}`);
  return [
    'Terminal tools: the output of these tools is delivered as your answer and ends the turn. After',
    'calling one, add nothing; call at most one of them per turn.',
    ...lines,
  ].join('\n');
}
