// The rate limiter's windows start on the minute, hour and day (of the epoch). A test that counts
// several requests in one window first waits out a window about to end, so that none of its
// requests falls into the next one.

/** Resolves at once, or after the current window of `windowSeconds` ends if fewer than `marginSeconds` of it are left. */
export async function clearOfWindowEnd(windowSeconds: number, marginSeconds: number): Promise<void> {
  const left = windowSeconds - ((Date.now() / 1000) % windowSeconds);
  if (left < marginSeconds) await new Promise((resolve) => setTimeout(resolve, (left + 0.2) * 1000));
}
