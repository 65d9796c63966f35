/**
 * The cap of each BullMQ queue's event stream (`<prefix>:<queue>:events`). Nothing in switchboard
 * reads that stream (no `QueueEvents`); it is kept short so it costs little memory. Every `Queue`
 * of the project passes it (`queues/` opens them all with `openProducerQueue`), because each `Queue`
 * instance writes its own value into the queue's meta hash, and one left at BullMQ's default
 * (10 000 events) would raise it again.
 */
export const QUEUE_STREAMS = { events: { maxLen: 500 } } as const;
