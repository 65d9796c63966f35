/**
 * `switchboard eval`: the example app's suite (evals/concierge.yaml, scripted model) passes; a
 * broken expectation fails its row and the exit code; `--compare` with an actor that lost a tool
 * prints both tables and what changed per case.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const launcher = join(repo, 'bin', 'switchboard.js');
const scratch = mkdtempSync(join(tmpdir(), 'sb-eval-'));

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs `switchboard <args>` from the repository, without a model endpoint. */
function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env['ANTHROPIC_API_KEY'];
  delete env['ANTHROPIC_BASE_URL'];
  delete env['SWITCHBOARD_APP'];
  return new Promise((resolveRun) => {
    execFile(process.execPath, [launcher, ...args], { cwd: repo, env }, (error, stdout, stderr) => {
      resolveRun({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

/** The example suite with its app made absolute and `change` applied, written to a file of the scratch folder. */
function suiteCopy(name: string, change: (suite: { app?: string; cases: { name: string; fixture?: string; expect: unknown[] }[] }) => void): string {
  const suite = parse(readFileSync(join(repo, 'evals', 'concierge.yaml'), 'utf8')) as { app?: string; cases: { name: string; fixture?: string; expect: unknown[] }[] };
  suite.app = repo;
  for (const entry of suite.cases) if (entry.fixture !== undefined) entry.fixture = join(repo, 'evals', entry.fixture);
  change(suite);
  const file = join(scratch, name);
  writeFileSync(file, stringify(suite));
  return file;
}

describe('switchboard eval', () => {
  it('passes the example suite on the scripted model: a table of every expectation, exit 0', async () => {
    const { code, stdout } = await cli(['eval', 'evals/concierge.yaml']);
    expect(stdout).toMatch(/^case\s+expectation\s+result\s+detail$/m);
    expect(stdout).toMatch(/flight search\s+calls search_flights with .*\s+pass\s+/);
    expect(stdout).toMatch(/booking asks for approval\s+asks approval for book_flight\s+pass/);
    expect(stdout).toMatch(/clarify when the date is missing\s+ends clarifying\s+pass/);
    expect(stdout).toMatch(/, 0 failed$/m);
    expect(stdout).not.toContain('FAIL');
    expect(code).toBe(0);
  });

  it('fails a broken expectation in its row and exits 1', async () => {
    const file = suiteCopy('broken.yaml', (suite) => {
      suite.cases[1]?.expect.push({ turnState: 'complete' });
    });
    const { code, stdout } = await cli(['eval', file]);
    expect(stdout).toMatch(/booking asks for approval\s+ends complete\s+FAIL\s+ended suspended/);
    expect(stdout).toMatch(/, 1 failed$/m);
    expect(code).toBe(1);
  });

  it('fails a live case with no model endpoint, saying what to set', async () => {
    const file = suiteCopy('live.yaml', (suite) => {
      suite.cases = suite.cases.slice(0, 1).map((entry) => ({ ...entry, model: 'live' }));
    });
    const { code, stdout } = await cli(['eval', file]);
    expect(stdout).toMatch(/runs on the model endpoint\s+FAIL\s+no model endpoint: set ANTHROPIC_API_KEY/);
    expect(code).toBe(1);
  });

  it('refuses an invalid suite with its problems, exit 2', async () => {
    const file = join(scratch, 'invalid.yaml');
    writeFileSync(file, stringify({ cases: [{ name: 'x', turns: [{ message: 'hi' }], expect: [{ toolCaled: 'search_flights' }] }] }));
    const { code, stdout } = await cli(['eval', file]);
    expect(stdout).toContain('not a valid eval suite');
    expect(stdout).toMatch(/cases\[0\]\.expect\[0\]/);
    expect(code).toBe(2);
  });

  it('--compare runs another concierge beside the current one and prints what changed per case', async () => {
    const actor = parse(readFileSync(join(repo, 'actors', 'concierge.yaml'), 'utf8')) as { tools: string[] };
    actor.tools = actor.tools.filter((tool) => tool !== 'book_flight');
    const file = join(scratch, 'concierge-no-booking.yaml');
    writeFileSync(file, stringify(actor));
    const { code, stdout } = await cli(['eval', 'evals/concierge.yaml', '--compare', file]);
    expect(stdout).toContain('with the actors of');
    expect(stdout).toMatch(/Differences with .*concierge-no-booking\.yaml/);
    expect(stdout).toMatch(/booking asks for approval:\n\s+"asks approval for book_flight": pass -> FAIL/);
    expect(stdout).toMatch(/flight search: no difference/);
    expect(code).toBe(1);
  });
});
