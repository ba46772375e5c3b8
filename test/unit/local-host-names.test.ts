import { describe, expect, it } from 'vitest';
import { hostRefusal, localApiHosts } from '#infra/local/host-names.ts';

const accepts = (host: string | undefined, own: Parameters<typeof hostRefusal>[1]) => hostRefusal(host, own) === undefined;

describe('the local server’s own names', () => {
  it('are localhost and the loopback addresses with its port', () => {
    const own = { port: 3000, listenHost: '127.0.0.1' };
    for (const host of ['localhost:3000', 'LocalHost:3000', '127.0.0.1:3000', '127.255.0.9:3000', '[::1]:3000', '[0:0:0:0:0:0:0:1]:3000'])
      expect(accepts(host, own), host).toBe(true);
    for (const host of [
      undefined,
      '',
      'localhost',
      'localhost:3001',
      '128.0.0.1:3000',
      '[::2]:3000',
      'localhost.:3000',
      'a.localhost:3000',
    ])
      expect(accepts(host, own), String(host)).toBe(false);
  });

  it('take no port in Host as port 80', () => {
    expect(accepts('localhost', { port: 80 })).toBe(true);
    expect(accepts('localhost:80', { port: 80 })).toBe(true);
    expect(accepts('localhost', { port: 8080 })).toBe(false);
  });

  it('include the one address it listens on, never a name that reads as all of them', () => {
    expect(accepts('192.0.2.7:3000', { port: 3000, listenHost: '192.0.2.7' })).toBe(true);
    expect(accepts('[2001:db8::7]:3000', { port: 3000, listenHost: '2001:db8::7' })).toBe(true);
    expect(accepts('192.0.2.8:3000', { port: 3000, listenHost: '192.0.2.7' })).toBe(false);
    expect(accepts('0.0.0.0:3000', { port: 3000, listenHost: '0.0.0.0' })).toBe(false);
    expect(accepts('[::]:3000', { port: 3000, listenHost: '::' })).toBe(false);
  });

  it('add the names of LOCAL_API_HOSTS: any port, or the one named', () => {
    const own = { port: 3000, extra: localApiHosts(' api.example.edu , ,dev.example.edu:8443,plain.example.edu:80') };
    expect(own.extra).toEqual(['api.example.edu', 'dev.example.edu:8443', 'plain.example.edu:80']);
    for (const host of ['api.example.edu', 'API.example.edu:443', 'dev.example.edu:8443', 'plain.example.edu', 'plain.example.edu:80'])
      expect(accepts(host, own), host).toBe(true);
    for (const host of [
      'dev.example.edu',
      'dev.example.edu:3000',
      'plain.example.edu:3000',
      'api.example.edu.evil.example',
      'evil.example',
    ])
      expect(accepts(host, own), host).toBe(false);
  });

  it('refuse anything that is not a plain host and port', () => {
    const own = { port: 3000, extra: ['api.example.edu'] };
    for (const host of [
      'user@localhost:3000',
      'localhost:3000/path',
      'localhost:3000?x',
      'local host:3000',
      'localhost:3000#',
      'evil.example\\@api.example.edu',
    ])
      expect(accepts(host, own), host).toBe(false);
    expect(hostRefusal('evil.example:3000', own)).toBe(
      'This server does not answer to the host name "evil.example:3000": call it as localhost, 127.0.0.1 or [::1] with port 3000, or add the name to LOCAL_API_HOSTS.',
    );
  });
});
