// Which headers describe one connection rather than the message, and so are never passed on:
// the standard list plus every header the Connection header names (RFC 9110 7.6.1).

const STANDARD_HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

const STANDARD_SET: ReadonlySet<string> = new Set(STANDARD_HOP_BY_HOP);

/** The header names (lower case) listed in Connection header values. */
function namedByConnection(values: Iterable<string>): string[] {
  const names: string[] = [];
  for (const value of values) {
    for (const token of value.split(',')) {
      const name = token.trim().toLowerCase();
      if (name !== '') names.push(name);
    }
  }
  return names;
}

/**
 * The hop-by-hop header names of one message, given its Connection values. `keepUpgrade` keeps
 * `connection` and `upgrade` themselves, for an upgrade handshake that must reach the other end.
 */
export function hopByHopNames(connectionValues: Iterable<string>, keepUpgrade = false): ReadonlySet<string> {
  // Most messages name nothing in Connection: they share one set, made once.
  const named = namedByConnection(connectionValues);
  if (!keepUpgrade && named.every((name) => STANDARD_SET.has(name))) return STANDARD_SET;
  const names = new Set([...STANDARD_HOP_BY_HOP, ...named]);
  if (keepUpgrade) {
    names.delete('connection');
    names.delete('upgrade');
  }
  return names;
}

/** Connection values of a raw header list (name, value, name, value...). */
export function connectionValuesOf(raw: string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'connection') values.push(raw[i + 1]!);
  return values;
}

/** A raw header list without the given names. */
export function withoutHeaders(raw: string[], names: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (!names.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  return out;
}
