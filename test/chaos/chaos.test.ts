/**
 * The short chaos run (`npm run chaos` in small): a few hundred messages while a worker is
 * SIGKILLed, the web process is SIGKILLed and restarted, and Redis is stopped with SIGTERM and
 * killed with SIGKILL (appendfsync always), each once. Nothing may be lost, answered twice,
 * answered out of order or left stuck. No timing is asserted: the recovery times are printed only.
 */
import { describe, expect, it } from 'vitest';
import { CI_PLAN } from '../../chaos/plan.ts';
import { formatTable } from '../../chaos/report.ts';
import { runChaos } from '../../chaos/run-chaos.ts';

describe('chaos run (short)', () => {
  it('loses, repeats, reorders and strands nothing through worker, web and Redis crashes', async () => {
    const report = await runChaos(CI_PLAN, { log: (line) => { process.stdout.write(`${line}\n`); } });
    process.stdout.write(`${formatTable([report])}\n`);
    const { figures } = report;
    expect(report.problems).toEqual([]);
    expect(figures.accepted).toBe(figures.sent);
    expect(figures.answered).toBe(figures.accepted - CI_PLAN.stormConversations);
    expect(figures.recoveries.map((recovery) => recovery.count)).toEqual([1, 1, 1, 1]);
    expect(figures.approvalsRequested).toBeGreaterThan(0);
  }, 240_000);
});
