// Waiting for something that may never end, with a bound: shutdown must not hang on it.

/** Resolves when `work` settles (either way) or `ms` have passed, whichever is first. */
export function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  return Promise.race([settled, waited]).finally(() => clearTimeout(timer));
}
