/**
 * The rejection of `promise`, for tests that look into the error a client threw (its class, code,
 * fields). Fails the test when the promise resolves.
 */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
