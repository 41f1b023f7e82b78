// A one-shot "stop waiting" flag with listeners, for long-polls. An AbortController would do the
// same, but one is made for every queue and worker request that may wait, and building it and its
// EventTarget listeners showed in the hot path's profile; this is a flag and a short array.

export class Cancellation {
  private listeners: (() => void)[] | undefined;
  private done = false;

  get aborted(): boolean {
    return this.done;
  }

  abort(): void {
    if (this.done) return;
    this.done = true;
    const listeners = this.listeners;
    this.listeners = undefined;
    for (const listener of listeners ?? []) listener();
  }

  /** Runs `listener` once when aborted (at once if it already is); the answer forgets it again. */
  onAbort(listener: () => void): () => void {
    if (this.done) {
      listener();
      return noop;
    }
    (this.listeners ??= []).push(listener);
    return () => {
      const index = this.listeners?.indexOf(listener) ?? -1;
      if (index >= 0) this.listeners!.splice(index, 1);
    };
  }
}

function noop(): void {}
