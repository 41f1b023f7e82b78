// Which addresses a webhook may connect to: public unicast only, unless an operator range allows
// it. IPv6 forms that carry an IPv4 address (IPv4-compatible ::/96, mapped ::ffff:0:0/96, NAT64
// 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32) are judged by the IPv4 address inside: the
// library classes ::/96 as public, so [::127.0.0.1] would otherwise pass.
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

function ipv4FromBytes(bytes: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes);
}

/** The IPv4 address an IPv6 address carries, when it is one of the embedding forms. */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const bytes = address.toByteArray();
  const words = address.parts;
  const lastFour = bytes.slice(12, 16);
  const zeros = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  // Mapped ::ffff:a.b.c.d and compatible ::a.b.c.d (:: and ::1 keep their own meaning).
  if (zeros(0, 5) && words[5] === 0xffff) return ipv4FromBytes(lastFour);
  if (zeros(0, 6) && !(words[6] === 0 && (words[7] === 0 || words[7] === 1))) return ipv4FromBytes(lastFour);
  // NAT64 well-known prefix 64:ff9b::/96 and the local-use 64:ff9b:1::/48.
  if (words[0] === 0x64 && words[1] === 0xff9b && (zeros(2, 6) || words[2] === 1)) return ipv4FromBytes(lastFour);
  // 6to4: 2002:aabb:ccdd::/48.
  if (words[0] === 0x2002) return ipv4FromBytes(bytes.slice(2, 6));
  // Teredo: the client's address is the last 32 bits, inverted.
  if (words[0] === 0x2001 && words[1] === 0) return ipv4FromBytes(lastFour.map((b) => b ^ 0xff));
  return undefined;
}

/** The address to judge: an embedded IPv4 address stands for the IPv6 one that carries it. */
export function normaliseAddress(text: string): Address | undefined {
  let parsed: Address;
  try {
    parsed = ipaddr.parse(text);
  } catch {
    return undefined;
  }
  if (parsed.kind() === 'ipv4') return parsed;
  return embeddedIPv4(parsed as ipaddr.IPv6) ?? parsed;
}

/**
 * Which addresses may be connected to: anything but public unicast is refused, unless one of the
 * operator's ranges allows it. The ranges are parsed once: every webhook is checked when it is
 * submitted and again when it is delivered, and parsing them per check cost more than the rest of
 * the check.
 */
export class AddressPolicy {
  private readonly allowed: [Address, number][] = [];

  constructor(allowedCidrs: readonly string[]) {
    for (const cidr of allowedCidrs) {
      try {
        this.allowed.push(ipaddr.parseCIDR(cidr));
      } catch {
        // An unparsable range allows nothing; config validation reports it at start.
      }
    }
  }

  /** Whether connecting to this address is refused. */
  refuses(address: string): boolean {
    const parsed = normaliseAddress(address);
    if (!parsed) return true;
    for (const range of this.allowed) if (range[0].kind() === parsed.kind() && parsed.match(range)) return false;
    return parsed.range() !== 'unicast';
  }
}

/** A URL's host as an address or name to check: brackets and trailing dots removed, lower case. */
export function hostOf(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();
}
