/**
 * Tests of local_time: the function itself, the tool as the runtime calls it (testTool), and the
 * assistant actor using it in a whole turn against a scripted model (startTestBot). Run with
 * `npm test`; they need redis-server on PATH, as the service does.
 */
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { answer, callTool, startTestBot, testTool, type TestBot } from 'switchboard/testing';
import localTimeTool, { localTime } from './local_time.ts';

describe('localTime', () => {
  it('tells the local time, weekday and offset of a time zone', () => {
    const noonInLondon = new Date('2026-12-18T12:00:00Z');
    assert.deepEqual(localTime('Asia/Tokyo', noonInLondon), { timezone: 'Asia/Tokyo', localTime: '2026-12-18 21:00', weekday: 'Friday', utcOffset: 'GMT+9' });
  });

  it('names a time zone that does not exist', () => {
    assert.throws(() => localTime('Mars/Olympus', new Date()), /"Mars\/Olympus" is not a time zone/);
  });
});

describe('the local_time tool', () => {
  const tool = testTool(localTimeTool);

  it('takes a time zone and nothing else', () => {
    assert.equal(tool.argumentError({ timezone: 'Europe/Paris' }), undefined);
    assert.match(tool.argumentError({}) ?? '', /timezone/);
  });

  it('answers as its schema says', async () => {
    const result = await tool.call({ timezone: 'Europe/Paris' });
    assert.equal(result.timezone, 'Europe/Paris');
    assert.match(result.localTime, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
  });
});

describe('the assistant actor', () => {
  let bot: TestBot;
  before(async () => { bot = await startTestBot({ app: new URL('..', import.meta.url) }); });
  after(async () => { await bot.close(); });

  it('calls local_time and answers from its result', async () => {
    const turn = await bot.send('What time is it in Tokyo?', {
      model: [
        callTool('local_time', { timezone: 'Asia/Tokyo' }),
        (call) => {
          const result = JSON.parse(call.toolResults[0]?.content ?? '{}') as { localTime?: string };
          return answer(`It is ${result.localTime ?? '?'} in Tokyo.`);
        },
      ],
    });
    assert.equal(turn.turnState, 'complete');
    assert.deepEqual(turn.toolCalls.map((call) => [call.name, call.outcome]), [['local_time', 'ok']]);
    assert.match(turn.text(), /^It is \d{4}-\d{2}-\d{2} \d{2}:\d{2} in Tokyo\.$/);
  });

  it('hears about a time zone that does not exist, and can say so', async () => {
    const turn = await bot.send('What time is it on Mars?', {
      model: [callTool('local_time', { timezone: 'Mars/Olympus' }), answer('Mars has no time zone I know.')],
    });
    assert.equal(turn.toolCalls[0]?.outcome, 'error');
    assert.match(turn.toolCalls[0].error ?? '', /not a time zone/);
  });
});
