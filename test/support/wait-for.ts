/**
 * Polls a condition until it holds or a deadline passes: tests wait for what they observe, never
 * for a fixed time.
 *
 * @param condition - Checked every `intervalMs` (default 25).
 * @param what - Named in the error when the deadline passes.
 * @param timeoutMs - Default 10000.
 */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000, intervalMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting until ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
