import { describe, expect, it } from 'vitest';
import { classifyAddress, isAllowedHost, parseIpv6 } from '#shared/network/addresses.ts';
import { CheckoutError, checkUrlAddress } from '#shared/grading/checkout/http.ts';

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fc00::1', 'private'],
    ['fd00:ec2::254', 'private'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['ff02::1', 'reserved'],
    // IPv4-mapped, IPv4-compatible and NAT64 forms are judged by their IPv4 address.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::10.1.2.3', 'private'],
    // Public.
    ['8.8.8.8', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.1', 'public'],
    ['169.253.1.1', 'public'],
    ['192.169.0.1', 'public'],
    ['140.82.112.3', 'public'],
    ['2606:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    // Not addresses.
    ['example.com', 'invalid'],
    ['256.1.1.1', 'invalid'],
    ['1.2.3', 'invalid'],
    ['1::2::3', 'invalid'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('parses IPv6 forms to sixteen bytes', () => {
    expect(parseIpv6('::1')).toEqual([...Array(15).fill(0), 1]);
    expect(parseIpv6('::ffff:1.2.3.4')).toEqual([...Array(10).fill(0), 0xff, 0xff, 1, 2, 3, 4]);
    expect(parseIpv6('2001:db8::8:800:200c:417a')).toEqual([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 8, 8, 0, 0x20, 0x0c, 0x41, 0x7a]);
    expect(parseIpv6('1.2.3.4')).toBeUndefined();
  });
});

describe('allowed hosts', () => {
  it('matches host or host:port, with default ports', () => {
    expect(isAllowedHost(new URL('http://127.0.0.1:8080/x'), ['127.0.0.1:8080'])).toBe(true);
    expect(isAllowedHost(new URL('http://127.0.0.1:8081/x'), ['127.0.0.1:8080'])).toBe(false);
    expect(isAllowedHost(new URL('http://git.local/x'), ['GIT.local'])).toBe(true);
    expect(isAllowedHost(new URL('https://git.local/x'), ['git.local:443'])).toBe(true);
    expect(isAllowedHost(new URL('http://git.local/x'), ['git.local:443'])).toBe(false);
    expect(isAllowedHost(new URL('http://[::1]:9000/x'), ['[::1]:9000'])).toBe(true);
    expect(isAllowedHost(new URL('http://127.0.0.1/x'), [])).toBe(false);
  });
});

describe('checking a URL before connecting', () => {
  const resolver = (answers: Record<string, string[]>) => async (hostname: string) => {
    const addresses = answers[hostname];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const noLookup = async () => {
    throw new Error('no lookup expected');
  };

  it('refuses loopback, link-local, private and unspecified literals without a lookup', async () => {
    for (const url of [
      'http://127.0.0.1/x',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/x',
      'http://10.0.0.1/x',
      'http://0.0.0.0/x',
      'http://[::ffff:127.0.0.1]/x',
      'http://[fe80::1]/x',
      'http://2130706433/x',
      'http://0x7f.1/x',
    ]) {
      await expect(checkUrlAddress(new URL(url), [], noLookup), url).rejects.toThrow(
        /is an? (loopback|link-local|private network|unspecified) address/,
      );
    }
  });

  it('refuses a host when any of its addresses is refused', async () => {
    const resolve = resolver({ 'evil.example': ['93.184.216.34', '127.0.0.1'], 'meta.example': ['169.254.169.254'] });
    await expect(checkUrlAddress(new URL('https://evil.example/r.git'), [], resolve)).rejects.toThrow(
      'the host evil.example has the address 127.0.0.1, which is a loopback address',
    );
    await expect(checkUrlAddress(new URL('https://meta.example/r.git'), [], resolve)).rejects.toThrow(/link-local/);
  });

  it('returns the checked public address, or any address for an allowed host', async () => {
    const resolve = resolver({ 'git.example': ['93.184.216.34'], 'git.internal': ['10.1.2.3'] });
    expect(await checkUrlAddress(new URL('https://git.example/r.git'), [], resolve)).toEqual({ address: '93.184.216.34', family: 4 });
    expect(await checkUrlAddress(new URL('https://git.internal/r.git'), ['git.internal'], resolve)).toEqual({
      address: '10.1.2.3',
      family: 4,
    });
    expect(await checkUrlAddress(new URL('http://127.0.0.1:9999/r.git'), ['127.0.0.1:9999'], noLookup)).toEqual({
      address: '127.0.0.1',
      family: 4,
    });
  });

  it('explains unknown hosts, other schemes and credentials in URLs', async () => {
    await expect(checkUrlAddress(new URL('https://nowhere.example/r.git'), [], resolver({}))).rejects.toThrow(
      'the host nowhere.example could not be found',
    );
    await expect(checkUrlAddress(new URL('ftp://git.example/r.git'), [], noLookup)).rejects.toBeInstanceOf(CheckoutError);
    await expect(checkUrlAddress(new URL('https://user:pw@git.example/r.git'), [], noLookup)).rejects.toThrow(/user name or password/);
  });
});
