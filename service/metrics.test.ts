import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.ts';

describe('metrics', () => {
  it('counts per label set and renders the Prometheus text format', () => {
    const metrics = createMetrics();
    metrics.count('jobs_total');
    metrics.count('jobs_total', {}, 2);
    metrics.count('messages_total', { channel: 'web', outcome: 'ok' });
    metrics.count('messages_total', { channel: 'web', outcome: 'ok' });
    metrics.count('messages_total', { channel: 'sms', outcome: 'ok' });
    metrics.observe('call_seconds', 0.5, { model: 'm' });
    metrics.observe('call_seconds', 0.25, { model: 'm' });
    expect(metrics.render().split('\n')).toEqual([
      '# TYPE jobs_total counter',
      'jobs_total 3',
      '# TYPE messages_total counter',
      'messages_total{channel="web",outcome="ok"} 2',
      'messages_total{channel="sms",outcome="ok"} 1',
      '# TYPE call_seconds summary',
      'call_seconds_sum{model="m"} 0.75',
      'call_seconds_count{model="m"} 2',
      '',
    ]);
  });

  it('escapes backslashes, double quotes and newlines in label values', () => {
    const metrics = createMetrics();
    metrics.count('odd_total', { value: 'a\\b"c\nd' });
    expect(metrics.render()).toContain('odd_total{value="a\\\\b\\"c\\nd"} 1');
  });
});
