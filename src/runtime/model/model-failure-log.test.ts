import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../protocol/errors.ts';
import { logModelFailures } from './model-failure-log.ts';
import type { ModelClient } from './model-types.ts';

function failing(kind: string): ModelClient {
  return { create: () => Promise.reject(new SwitchboardError('model.failed', `The model call failed: ${kind}.`, { details: { kind } })) };
}

describe('model failures in the process log', () => {
  it('warns once per kind per interval, naming the host, then says how many more there were', async () => {
    const lines: { fields: Record<string, unknown>; message: string }[] = [];
    let clock = 0;
    const options = { endpoint: 'http://models.internal:8080/v1', warn: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }), everyMs: 1000, now: () => clock };
    const refused = logModelFailures(failing('connection'), options);
    const rejected = logModelFailures(failing('rejected'), options);
    for (let call = 0; call < 3; call += 1) await expect(refused.create({} as never)).rejects.toThrow(/connection/);
    await expect(rejected.create({} as never)).rejects.toThrow(/rejected/);
    expect(lines.map((line) => line.message)).toEqual(['model call failed: connection (models.internal:8080)', 'model call failed: rejected (models.internal:8080)']);
    clock = 1500;
    await expect(refused.create({} as never)).rejects.toThrow();
    expect(lines.at(-1)?.fields).toMatchObject({ kind: 'connection', host: 'models.internal:8080', moreSinceLastWarning: 2 });
  });

  it('stays quiet for an aborted call and passes answers through', async () => {
    const lines: unknown[] = [];
    const aborted = logModelFailures(failing('aborted'), { endpoint: 'https://api.example.com', warn: (fields) => lines.push(fields) });
    await expect(aborted.create({} as never)).rejects.toThrow();
    const answer = { content: [], stopReason: 'end_turn' };
    const fine = logModelFailures({ create: () => Promise.resolve(answer as never) }, { endpoint: 'https://api.example.com', warn: (fields) => lines.push(fields) });
    expect(await fine.create({} as never)).toBe(answer);
    expect(lines).toEqual([]);
  });
});
