// The kinds of value a setting can hold, each turning the text given on the command line or in
// the environment into a typed value, or saying what the text must be.
import { resolve } from 'node:path';

/** A text that is not a valid value; each reason reads "must be ..., got '...'". */
export class InvalidValue extends Error {
  readonly reasons: readonly string[];

  constructor(...reasons: string[]) {
    super(reasons.join('; '));
    this.reasons = reasons;
  }
}

export interface ValueType<T> {
  /** What a valid text looks like, for `--help` and the docs. */
  readonly accepts: string;
  /** The value of a non-empty text; throws InvalidValue when the text is not one. */
  parse(text: string): T;
}

export function integer(min: number, max: number): ValueType<number> {
  return {
    accepts: `integer ${min}..${max}`,
    parse(text) {
      const value = Number(text);
      if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
        throw new InvalidValue(`must be an integer from ${min} to ${max}, got '${text}'`);
      }
      return value;
    },
  };
}

export function choice<const T extends string>(allowed: readonly T[]): ValueType<T> {
  const isAllowed = (text: string): text is T => (allowed as readonly string[]).includes(text);
  return {
    accepts: allowed.join(', '),
    parse(text) {
      if (!isAllowed(text)) throw new InvalidValue(`must be one of ${allowed.join(', ')}, got '${text}'`);
      return text;
    },
  };
}

export const text: ValueType<string> = { accepts: 'text', parse: (value) => value };

/** A shared secret: long enough that guessing it is hopeless. */
export const secretToken: ValueType<string> = {
  accepts: 'text of 24 or more characters',
  parse(value) {
    if (value.length < 24) throw new InvalidValue(`must be at least 24 characters, got ${value.length}`);
    return value;
  },
};

/** An encryption key: exactly 32 bytes, base64 (`openssl rand -base64 32`). Never echoed back. */
export const base64Key: ValueType<string> = {
  accepts: '32 bytes, base64',
  parse(value) {
    const text = value.trim();
    const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64').length : 0;
    if (bytes !== 32)
      throw new InvalidValue(`must be 32 bytes in base64 (openssl rand -base64 32), got ${bytes === 0 ? 'no base64' : `${bytes} bytes`}`);
    return text;
  },
};

/** A file or directory, made absolute against the working directory Gantry started in. */
export const path: ValueType<string> = { accepts: 'path', parse: (value) => resolve(value) };

/** An absolute http(s) URL; a trailing slash is dropped so paths can be appended. */
export const httpUrl: ValueType<string> = {
  accepts: 'http(s) URL',
  parse(value) {
    if (!isHttpUrl(value)) throw new InvalidValue(`must be an absolute http(s) URL, got '${value}'`);
    return withoutTrailingSlash(value);
  },
};

/** An http(s) URL with `{id}` standing for an endpoint id. */
export const urlPattern: ValueType<string> = {
  accepts: 'http(s) URL with {id}',
  parse(value) {
    const pattern = withoutTrailingSlash(value);
    if (!pattern.includes('{id}') || !isHttpUrl(pattern.replace('{id}', 'x'))) {
      throw new InvalidValue(`must be an http(s) URL containing {id}, got '${pattern}'`);
    }
    return pattern;
  },
};

/** Comma-separated CIDR ranges; every bad range is reported. */
export const cidrList: ValueType<readonly string[]> = {
  accepts: 'comma-separated CIDRs',
  parse(value) {
    const list = value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
    const bad = list.filter((cidr) => !isCidr(cidr));
    if (bad.length > 0) throw new InvalidValue(...bad.map((cidr) => `must be a comma-separated list of CIDR ranges, got '${cidr}'`));
    return Object.freeze(list);
  },
};

/** A PostgreSQL connection URL; its password is never shown in a message. */
export const postgresUrl: ValueType<string> = {
  accepts: 'postgres:// URL',
  parse(value) {
    if (!/^postgres(ql)?:\/\/./.test(value)) {
      throw new InvalidValue(`must be a postgres:// URL (leave it unset for the embedded SQLite store), got '${redact(value)}'`);
    }
    return value;
  },
};

/** Hides a password in a connection URL before it is shown. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

function isCidr(cidr: string): boolean {
  const [address = '', bits = ''] = cidr.split('/');
  const maxBits = address.includes(':') ? 128 : 32;
  const validAddress = address.includes(':') ? /^[0-9a-fA-F:.]+$/.test(address) : /^(\d{1,3}\.){3}\d{1,3}$/.test(address);
  return validAddress && /^\d+$/.test(bits) && Number(bits) <= maxBits;
}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function isHttpUrl(value: string): boolean {
  try {
    const parsed = new URL(value);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '';
  } catch {
    return false;
  }
}
