// GraphQL inputs may leave a field out or send the literal null; both mean "not given".
export function given<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

/** The entries whose value is given, so a REST body never carries a property set to nothing. */
export function onlyGiven(entries: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => given(value)));
}
