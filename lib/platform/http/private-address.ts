import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { ipv6Groups } from './client-ip';

/**
 * Which addresses a request made on a stranger's behalf must never reach: everything that is not
 * the public internet. Two such requests exist: fetching a client ID metadata document
 * (lib/identity/oauth/client-metadata.ts) and delivering a deletion notice to a data buyer's webhook
 * (lib/data/buyers/webhooks.ts). Both connect only to addresses checked here, through
 * `checkedLookup` (below).
 *
 * IPv4: the special-purpose networks of the IANA registry (RFC 6890) below.
 *
 * IPv6: only global unicast, 2000::/3, can be public, so everything outside it is refused. That
 * covers ::/128 and ::1, ::/96 (IPv4-compatible, deprecated by RFC 4291), ::ffff:0:0:0/96
 * (IPv4-translated, RFC 7915), 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64, RFC 6052 and RFC 8215:
 * a translator may reach any IPv4 address, private ones included), 100::/64 (discard),
 * fc00::/7 (unique local), fec0::/10 (site-local), fe80::/10 (link-local) and ff00::/8
 * (multicast). Inside 2000::/3, the ranges of IPV6_SPECIAL are refused too. The one exception is
 * ::ffff:0:0/96 (IPv4-mapped): a socket given ::ffff:a.b.c.d talks IPv4 to a.b.c.d, so such an
 * address is judged by the IPv4 rules on the address it carries, however it is written.
 */

const IPV4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  IPV4.addSubnet(net, prefix, 'ipv4');

function inPrefix(groups: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if ((groups[i]! & mask) !== (prefix[i]! & mask)) return false;
  }
  return true;
}

/** Ranges inside global unicast (2000::/3) that are not public destinations either. */
const IPV6_SPECIAL = (
  [
    // IETF protocol assignments, among them Teredo (2001::/32, which carries an IPv4 address),
    // benchmarking (2001:2::/48) and ORCHID.
    ['2001::', 23],
    // Documentation (RFC 3849, RFC 9637).
    ['2001:db8::', 32],
    ['3fff::', 20],
    // 6to4 (RFC 3056): carries an IPv4 address, which a relay would reach.
    ['2002::', 16],
  ] as const
).map(([net, bits]) => ({ groups: ipv6Groups(net), bits }));

/** Is this address one a fetch on a stranger's behalf must never reach? Anything but an IP address is. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return IPV4.check(address, 'ipv4');
  if (family !== 6) return true;
  const g = ipv6Groups(address);
  if (g.length !== 8 || g.some((n) => !Number.isInteger(n) || n < 0 || n > 0xffff)) return true;
  // ::ffff:0:0/96, IPv4-mapped: the IPv4 address it carries decides.
  if (g.slice(0, 5).every((n) => n === 0) && g[5] === 0xffff) {
    return IPV4.check([g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255].join('.'), 'ipv4');
  }
  // Outside 2000::/3 nothing is public.
  if ((g[0]! & 0xe000) !== 0x2000) return true;
  return IPV6_SPECIAL.some((range) => inPrefix(g, range.groups, range.bits));
}

/** Whether a connection to `address` (an IP address) is allowed. */
export type AddressCheck = (address: string) => boolean;

/** The rule of every request made on a stranger's behalf: public addresses only. */
export const publicAddressesOnly: AddressCheck = (address) => !isPrivateAddress(address);

/**
 * A DNS lookup for Node's `http`/`https` (`lookup` option) that resolves every address of the
 * host, refuses the request when any of them fails `allowed` (error code `EPRIVATE`), and hands
 * Node the addresses it checked: the socket connects to a checked address, so a name that
 * resolves to a public address for the check and a private one for the connection (DNS
 * rebinding) gets nowhere. A host written as an IP address is connected to without any lookup:
 * check it with `refusedLiteral` first.
 */
export function checkedLookup(allowed: AddressCheck): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      if (list.length === 0 || list.some((a) => !allowed(a.address))) {
        return callback(Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EPRIVATE' }), '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** Whether a URL's hostname is an IP address (`[…]` for IPv6) that `allowed` refuses: Node connects to such a host without a lookup. */
export function refusedLiteral(hostname: string, allowed: AddressCheck): boolean {
  const literal = hostname.replace(/^\[|\]$/g, '');
  return isIP(literal) !== 0 && !allowed(literal);
}
