/**
 * How `npm run bench -- --paths` prints: one markdown table, a row per channel path, each path's
 * Redis commands beside the web chat's, and what each figure counts.
 */
import { printTable } from '../peers/report.ts';
import { commandsPerMessage, perMessage } from '../redis-usage.ts';
import type { PathFigures, PathPlan } from './measure-path.ts';

/** Target: every channel path at most this many times the web chat's Redis commands per message. */
export const PATH_COMMANDS_RATIO = 1.3;

/** Commands per message less what the idle service ran in the same time (its idle rate over the sending rate). */
function withoutIdle(figure: PathFigures): number {
  return commandsPerMessage(figure.commands, figure.messages) - figure.idleCommandsPerSecond / figure.sentRate;
}

const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

/** Prints the table, judged against the web chat. */
export function printPaths(figures: readonly PathFigures[], plan: PathPlan): void {
  const web = figures.find((figure) => figure.path.label === 'web');
  const webCommands = web === undefined ? undefined : commandsPerMessage(web.commands, web.messages);
  const webNet = web === undefined ? undefined : withoutIdle(web);
  const rows: string[][] = [
    ['Path', 'Messages (sent at)', 'Redis commands per message (most used)', 'x web chat', 'Idle Redis commands/s', 'Idle taken out: per message, x web chat', `<= ${PATH_COMMANDS_RATIO}x?`, 'Redis round trips per message', 'Provider API calls per message'],
  ];
  for (const figure of figures) {
    const commands = commandsPerMessage(figure.commands, figure.messages);
    const net = withoutIdle(figure);
    const netRatio = webNet === undefined ? undefined : net / webNet;
    rows.push([
      figure.path.name,
      `${figure.messages} (${figure.sentRate.toFixed(1)} msg/s)`,
      perMessage(figure.commands, figure.messages, 5),
      webCommands === undefined ? '-' : `${(commands / webCommands).toFixed(2)}x`,
      figure.idleCommandsPerSecond.toFixed(1),
      `${net.toFixed(1)}, ${netRatio === undefined ? '-' : `${netRatio.toFixed(2)}x`}`,
      netRatio === undefined || figure === web ? '-' : netRatio <= PATH_COMMANDS_RATIO ? 'yes' : 'no',
      `${(figure.roundTrips / figure.messages).toFixed(1)} (${figure.connections} connections)`,
      figure.providerCalls === undefined ? '- (no provider)' : (figure.providerCalls / figure.messages).toFixed(2),
    ]);
  }
  out();
  out('Summary (markdown):');
  out();
  printTable(rows);
  out();
  out(`Each path: a switchboard of its own (role all, instant model, fresh key prefix) on the bench's Redis; ${plan.warmUp} warm-up, ${plan.measured} measured and ${plan.tail} more`);
  out(`messages at ${plan.rate} msg/s unless its note says otherwise (open loop, rotating over ${plan.senders} senders); the counters are read as the first measured and the first later`);
  out('message are sent, so each figure is that window\'s total over the messages it sent (steady state). Idle: the service\'s Redis commands a second before any message;');
  out('taken out, it leaves what the messages themselves cost, which is what the target is judged on (the paths do not all run at the same rate). Redis commands:');
  out('INFO commandstats of the whole server. Round trips: socket writes of the service\'s own Redis connections (one write sends what is queued, then the replies are awaited).');
  out('Notes:');
  for (const figure of figures) out(`- ${figure.path.note}`);
}
