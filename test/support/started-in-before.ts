// What a file's before() hook starts (a Gantry, a browser page), named once at the top of the file
// so its tests read `g.call(...)` or `page.goto(...)` rather than reaching into a holder. The
// stand-in forwards every use to the real thing once the hook has set it, and says so plainly
// when it is used before that (at load, or in a file whose tests are skipped).
export interface StartedInBefore<T> {
  /** Stands for the started thing, inside tests and the hooks that run after the start. */
  readonly proxy: T;
  /** The started thing; undefined until set (skipped, not yet started, or its start failed). */
  readonly current: T | undefined;
  set(value: T): void;
}

export function startedInBefore<T extends object>(what: string): StartedInBefore<T> {
  let current: T | undefined;
  const proxy = new Proxy({} as T, {
    get(_, key) {
      if (current === undefined) throw new Error(`${what} starts in before(); use it inside a test`);
      const value: unknown = Reflect.get(current, key);
      // Methods run on the real object, so class instances (a Playwright page) keep their `this`.
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
    },
  });
  return {
    proxy,
    get current() {
      return current;
    },
    set(value) {
      current = value;
    },
  };
}
