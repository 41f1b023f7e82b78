// Parsers for the flags that build request bodies; a bad value is a usage error naming the flag.
import { InvalidArgumentError } from 'commander';

/** For repeatable flags: each use adds one value. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function integer(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
  return (value) => {
    if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new InvalidArgumentError(`use a whole number ${range}`);
    return Number(value);
  };
}

export function commaList(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

/** `--env KEY=VALUE`, repeatable, into one object. */
export function envPair(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('use KEY=VALUE');
  const key = value.slice(0, at);
  // As GraphQL refuses a key listed twice: the first value would be dropped without a word.
  if (Object.hasOwn(previous, key)) throw new InvalidArgumentError(`${key} is given twice`);
  return { ...previous, [key]: value.slice(at + 1) };
}

export function oneOf<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value) => {
    const upper = value.toUpperCase().replace(/-/g, '_');
    const match = choices.find((choice) => choice === upper);
    if (!match) throw new InvalidArgumentError(`use one of ${choices.join(', ')}`);
    return match;
  };
}

/** Sets `key` on `body` only when the flag was given, so an update changes nothing else. */
export function setIfGiven(body: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) body[key] = value;
}
