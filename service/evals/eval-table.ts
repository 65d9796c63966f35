/** An eval run in words: a table of case, expectation, result and detail; and what a second actor version changed. */
import type { CaseReport } from './run-suite.ts';

function cut(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`;
}

/** The table of `reports` under `title`, with a closing count. */
export function formatTable(title: string, reports: readonly CaseReport[]): string {
  const rows = reports.flatMap((report) => report.results.map((result) => [cut(report.name, 32), cut(result.expectation, 56), result.pass ? 'pass' : 'FAIL', cut(result.detail, 90)]));
  const header = ['case', 'expectation', 'result', 'detail'];
  const widths = header.map((name, column) => Math.max(name.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ');
  const failed = rows.filter((row) => row[2] === 'FAIL').length;
  const count = `${String(reports.length)} case${reports.length === 1 ? '' : 's'}, ${String(rows.length)} expectation${rows.length === 1 ? '' : 's'}: ${String(rows.length - failed)} passed, ${String(failed)} failed`;
  return [title, line(header), ...rows.map(line), count, ''].join('\n');
}

/** Whether any expectation of `reports` failed. */
export function anyFailed(reports: readonly CaseReport[]): boolean {
  return reports.some((report) => report.results.some((result) => !result.pass));
}

function summaryOf(report: CaseReport): Record<string, string> {
  const outcome = report.outcome;
  if (outcome === undefined) return { run: 'did not run' };
  return {
    'tool calls': outcome.toolCalls.map((call) => `${call.name}(${JSON.stringify(call.args)})`).join(', ') || 'none',
    approvals: outcome.approvals.join(', ') || 'none',
    parts: outcome.parts.map((part) => part.partType).join(', ') || 'none',
    'turn state': outcome.turnState ?? 'none',
    text: cut(outcome.parts.filter((part) => part.text !== undefined).map((part) => part.text).join(' | '), 120) || 'none',
  };
}

/** Per case, what the second version (`other`) did differently from the first (`base`): the expectations and what the turns did. */
export function formatDifferences(base: readonly CaseReport[], other: readonly CaseReport[], otherName: string): string {
  const lines = [`Differences with ${otherName} (current -> compared):`];
  for (const report of base) {
    const compared = other.find((candidate) => candidate.name === report.name);
    if (compared === undefined) continue;
    const changes: string[] = [];
    for (const result of report.results) {
      const twin = compared.results.find((candidate) => candidate.expectation === result.expectation);
      if (twin !== undefined && twin.pass !== result.pass) changes.push(`"${result.expectation}": ${result.pass ? 'pass' : 'FAIL'} -> ${twin.pass ? 'pass' : 'FAIL'}`);
    }
    for (const result of compared.results) {
      if (!result.pass && !report.results.some((candidate) => candidate.expectation === result.expectation)) changes.push(`"${result.expectation}": FAIL (${result.detail})`);
    }
    const before = summaryOf(report);
    const after = summaryOf(compared);
    for (const [field, value] of Object.entries(before)) {
      if (after[field] !== value) changes.push(`${field}: ${value} -> ${after[field] ?? 'none'}`);
    }
    lines.push(changes.length === 0 ? `  ${report.name}: no difference` : `  ${report.name}:\n${changes.map((change) => `    ${change}`).join('\n')}`);
  }
  return `${lines.join('\n')}\n`;
}
