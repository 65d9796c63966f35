/**
 * A switchboard worker process of the bench (`role: 'worker'`, the instant model). Run as
 * `node bench/bench-worker.ts '{"redisUrl":…,"prefix":…}'`; prints `ready <pid>` once it takes
 * work, and closes on SIGTERM (or when the bench's pipe closes).
 */
import { serveUntilStopped } from '../test/support/child-ready.ts';
import { startSwitchboard } from './switchboard.ts';

const config = JSON.parse(process.argv[2] ?? '{}') as { redisUrl: string; prefix: string };
const service = await startSwitchboard({ redisUrl: config.redisUrl, prefix: config.prefix, role: 'worker' });
serveUntilStopped(() => service.close());
