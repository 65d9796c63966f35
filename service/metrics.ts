import type { ModelClient, ModelUsage } from '../src/runtime/model/model-types.ts';

type Labels = Readonly<Record<string, string>>;

/** In-process counters and latency sums, exposed in the Prometheus text format. */
export interface Metrics {
  /** Adds `by` (default 1) to a counter. */
  count(name: string, labels?: Labels, by?: number): void;
  /** Records one duration, in seconds, into a summary (`_sum` and `_count`). */
  observe(name: string, seconds: number, labels?: Labels): void;
  /**
   * Wraps a model client so that every call is counted and timed, with its token usage by model
   * (input, output, cache reads and writes) and, given `costUsd` (USD of a call; `undefined` for
   * a model without a price), its estimated cost (`switchboard_model_cost_usd_total{model}`).
   */
  wrapModel(model: ModelClient, costUsd?: (model: string, usage: ModelUsage) => number | undefined): ModelClient;
  /** The Prometheus exposition text. */
  render(): string;
}

/** A label value as the text format wants it: backslash, double quote and newline escaped. */
function labelValue(value: string): string {
  // Counted on every message: most values have nothing to escape.
  if (!/[\\"\n]/.test(value)) return value;
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

function labelText(labels: Labels): string {
  let text = '';
  for (const key in labels) text += `${text === '' ? '{' : ','}${key}="${labelValue(labels[key] ?? '')}"`;
  return text === '' ? '' : `${text}}`;
}

/** A {@link Metrics} registry. */
export function createMetrics(): Metrics {
  const counters = new Map<string, Map<string, number>>();
  const summaries = new Map<string, Map<string, { sum: number; count: number }>>();
  const bump = (name: string, labels: Labels, by: number): void => {
    const series = counters.get(name) ?? new Map<string, number>();
    counters.set(name, series);
    const key = labelText(labels);
    series.set(key, (series.get(key) ?? 0) + by);
  };
  const metrics: Metrics = {
    count(name, labels = {}, by = 1) {
      bump(name, labels, by);
    },
    observe(name, seconds, labels = {}) {
      const series = summaries.get(name) ?? new Map<string, { sum: number; count: number }>();
      summaries.set(name, series);
      const key = labelText(labels);
      const current = series.get(key) ?? { sum: 0, count: 0 };
      series.set(key, { sum: current.sum + seconds, count: current.count + 1 });
    },
    wrapModel(model, costUsd) {
      return {
        async create(request, options) {
          const started = performance.now();
          try {
            const response = await model.create(request, options);
            metrics.count('switchboard_model_calls_total', { model: request.model, outcome: 'ok' });
            metrics.count('switchboard_model_input_tokens_total', { model: request.model }, response.usage.inputTokens);
            metrics.count('switchboard_model_output_tokens_total', { model: request.model }, response.usage.outputTokens);
            metrics.count('switchboard_model_cache_read_tokens_total', { model: request.model }, response.usage.cacheReadInputTokens);
            metrics.count('switchboard_model_cache_write_tokens_total', { model: request.model }, response.usage.cacheCreationInputTokens);
            const cost = costUsd?.(response.model, response.usage);
            if (cost !== undefined) metrics.count('switchboard_model_cost_usd_total', { model: request.model }, cost);
            return response;
          } catch (error) {
            metrics.count('switchboard_model_calls_total', { model: request.model, outcome: 'error' });
            throw error;
          } finally {
            metrics.observe('switchboard_model_call_seconds', (performance.now() - started) / 1000, { model: request.model });
          }
        },
      };
    },
    render() {
      const lines: string[] = [];
      for (const [name, series] of counters) {
        lines.push(`# TYPE ${name} counter`);
        for (const [labels, value] of series) lines.push(`${name}${labels} ${value}`);
      }
      for (const [name, series] of summaries) {
        lines.push(`# TYPE ${name} summary`);
        for (const [labels, { sum, count }] of series) lines.push(`${name}_sum${labels} ${sum}`, `${name}_count${labels} ${count}`);
      }
      return `${lines.join('\n')}\n`;
    },
  };
  return metrics;
}
