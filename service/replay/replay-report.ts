/** A replay's findings in words, for the terminal. */
import type { ReplayReport } from './replay-fixture.ts';

/**
 * The report of replaying `sessionId` on app `app`: one line per turn, each departure under its
 * turn (its kind, then what departs), the recording's notes, and a closing count.
 */
export function formatReplayReport(sessionId: string, app: string, report: ReplayReport): string {
  const lines = [`Replayed ${sessionId}: ${String(report.turns)} turn${report.turns === 1 ? '' : 's'} on ${app}'s current actors and tools (recorded model responses and tool results).`];
  const turns = [...new Set(report.departures.map((departure) => departure.turn))].sort((a, b) => a - b);
  for (const turn of turns) {
    const departures = report.departures.filter((departure) => departure.turn === turn);
    lines.push(`turn ${String(turn)}: ${String(departures.length)} departure${departures.length === 1 ? '' : 's'}`);
    for (const departure of departures) lines.push(`  ${departure.kind.padEnd(12)} ${departure.message}`);
  }
  for (const note of report.notes) lines.push(`note: ${note}`);
  const count = report.departures.length;
  lines.push(count === 0 ? 'No departure: the replay does what the recording did.' : `${String(count)} departure${count === 1 ? '' : 's'} from the recording.`);
  return `${lines.join('\n')}\n`;
}
