// Small waiting primitives the worker loop is built from.

/** Resolves after `ms`, or at once when `signal` aborts (a stopping worker should not sit out a back-off). */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Resolves once the work this turn started (promise callbacks and I/O already due) has run. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A signal that aborts when `parent` does or after `ms`; `release()` drops the timer and listener. */
export function deadline(ms: number, parent?: AbortSignal): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onParent = () => controller.abort(parent?.reason);
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${ms} ms`)), ms);
  if (parent?.aborted) onParent();
  else parent?.addEventListener('abort', onParent, { once: true });
  return {
    signal: controller.signal,
    release: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParent);
    },
  };
}

/** Wakes everyone waiting for "something changed" (a slot freed, a job started). */
export class Notifier {
  private waiters: Array<() => void> = [];

  wait(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.push(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
