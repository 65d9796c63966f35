import { expect, it } from 'vitest';
import { ANSWERS } from '../kit/render/fixtures/answers.ts';
import { contractApproval } from '../kit/contract/channel-contract.ts';
import { createSmsRender } from './render.ts';
import { createSmsRender as oldRender } from './render-zzold.ts';

const clock = (): Date => new Date('2030-01-01T10:00:00.000Z');
it('same', () => {
  let n = 0;
  for (const options of [{}, { maxSegments: 1, partSegments: 1 }, { maxSegments: 2, partSegments: 1 }, { maxSegments: 4, partSegments: 1 }, { maxSegments: 6, partSegments: 2 }, { maxSegments: 3 }, { maxSegments: 25, partSegments: 10 }]) {
    const a = createSmsRender({ ...options, clock }); const b = oldRender({ ...options, clock });
    for (const address of ['+447700900123', 'whatsapp:+447700900123']) {
      const dest = { channel: 'sms', address };
      for (const { markdown } of ANSWERS) {
        const input = { type: 'envelope', turnId: 't', turnState: 'complete', parts: [{ text: markdown, metadata: { partType: 'response' } }] } as const;
        expect(a(input, dest)).toEqual(b(input, dest)); n++;
        const all = { ...input, parts: [{ text: ANSWERS.map((x) => x.markdown).join('\n\n'), metadata: { partType: 'response' } }] } as const;
        expect(a(all, dest)).toEqual(b(all, dest));
      }
      const record = contractApproval({ channel: 'sms', address: '+447700900123' });
      const variants = [record, { ...record, args: { ...record.args, note: 'window seat 🙏 ' + 'ж'.repeat(200) } },
        { ...record, status: 'granted', decidedAt: '2030-01-01T10:05:00.000Z', decidedBy: { channel: 'email', address: 'g@x', personId: 'grace' } },
        { ...record, status: 'denied', reason: 'too dear', decidedAt: '2030-01-01T10:05:00.000Z', decidedBy: { channel: 'sms', address: 'whatsapp:+447700900123', personId: 'grace' } },
        { ...record, status: 'denied', decidedAt: '2030-01-01T10:05:00.000Z' },
        { ...record, status: 'expired' }] as const;
      for (const r of variants) {
        for (const type of ['approval-request', 'approval-update'] as const) {
          const input = type === 'approval-request' ? { type, record: r, partId: 'p', part: { text: '' } } : { type, record: r };
          expect(a(input as never, dest)).toEqual(b(input as never, dest)); n++;
        }
      }
    }
  }
  for (const bad of [{ partSegments: 11, maxSegments: 0 }, { partSegments: 0 }, { maxSegments: 2.5 }]) {
    expect(() => createSmsRender(bad)).toThrow(); let m1 = ''; let m2 = '';
    try { createSmsRender(bad); } catch (e) { m1 = String(e); }
    try { oldRender(bad); } catch (e) { m2 = String(e); }
    expect(m1).toBe(m2);
  }
  expect(n).toBeGreaterThan(100);
});
