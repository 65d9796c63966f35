/**
 * The baseline's two hop workers in a process of their own. Run as
 * `node bench/baseline-worker.ts '{"redisUrl":…,"prefix":…}'`; prints `ready <pid>`, and stops on
 * SIGTERM (or when the bench's pipe closes).
 */
import { startBaselineHops } from './baseline.ts';
import { serveUntilStopped } from '../test/support/child-ready.ts';

const config = JSON.parse(process.argv[2] ?? '{}') as { redisUrl: string; prefix: string };
serveUntilStopped(await startBaselineHops(config.redisUrl, config.prefix));
