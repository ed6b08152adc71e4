/** Which requests the handlers take, and the path the engine then sees. */
import { describe, expect, it } from 'vitest';
import { engineUrlOf, parseBaseUrl } from './api-location.js';

const engineUrl = (baseUrl: string | undefined, url: string) => engineUrlOf(new URL(url), parseBaseUrl(baseUrl));

describe('parseBaseUrl', () => {
  it('reads no base URL as any origin, a path as a prefix on any origin, a URL as its origin and path', () => {
    expect(parseBaseUrl(undefined)).toEqual({ origin: undefined, prefix: '' });
    expect(parseBaseUrl('')).toEqual({ origin: undefined, prefix: '' });
    expect(parseBaseUrl('/pay/')).toEqual({ origin: undefined, prefix: '/pay' });
    expect(parseBaseUrl('https://API.example.com:443/')).toEqual({ origin: 'https://api.example.com', prefix: '' });
    expect(parseBaseUrl('http://localhost:8787/pay//')).toEqual({ origin: 'http://localhost:8787', prefix: '/pay' });
  });

  it('refuses what is neither a URL nor a path, naming it', () => {
    expect(() => parseBaseUrl('api.example.com')).toThrow(/baseUrl "api\.example\.com" is neither/);
  });
});

describe('engineUrlOf', () => {
  it('takes the API roots on any origin when there is no base URL, query included', () => {
    expect(engineUrl(undefined, 'http://localhost:5173/api/v1/payment-requests?x=1')).toBe('/api/v1/payment-requests?x=1');
    expect(engineUrl(undefined, 'https://anything.test/sandbox/v1/clock')).toBe('/sandbox/v1/clock');
    expect(engineUrl(undefined, 'https://anything.test/healthz')).toBe('/healthz');
    expect(engineUrl(undefined, 'https://anything.test/api/v1')).toBe('/api/v1');
  });

  it('leaves the rest alone: the page, its assets, other APIs and look-alike paths', () => {
    for (const url of ['http://localhost:5173/', 'http://localhost:5173/src/main.tsx', 'http://x.test/api/v2/things', 'http://x.test/api/v10/x', 'http://x.test/healthzz', 'http://x.test/v1/api/v1/x']) {
      expect(engineUrl(undefined, url)).toBeUndefined();
    }
  });

  it('takes only the base URL origin', () => {
    expect(engineUrl('https://api.example.com', 'https://api.example.com/api/v1/payment-requests')).toBe('/api/v1/payment-requests');
    expect(engineUrl('https://api.example.com', 'http://api.example.com/api/v1/payment-requests')).toBeUndefined();
    expect(engineUrl('https://api.example.com', 'https://api.example.com:8443/api/v1/payment-requests')).toBeUndefined();
    expect(engineUrl('https://api.example.com', 'https://app.example.com/api/v1/payment-requests')).toBeUndefined();
  });

  it('strips a path prefix, which the engine never sees, and needs it', () => {
    expect(engineUrl('https://api.example.com/pay', 'https://api.example.com/pay/api/v1/payment-requests/pr_1?a=b')).toBe('/api/v1/payment-requests/pr_1?a=b');
    expect(engineUrl('https://api.example.com/pay', 'https://api.example.com/api/v1/payment-requests')).toBeUndefined();
    expect(engineUrl('https://api.example.com/pay', 'https://api.example.com/payment/api/v1/payment-requests')).toBeUndefined();
    expect(engineUrl('/pay', 'http://localhost:5173/pay/healthz')).toBe('/healthz');
  });

  it('hands over the path as the URL parser normalised it (percent-encoding kept)', () => {
    expect(engineUrl(undefined, 'http://x.test/api/v1/payment-requests/pr%20a%2Fb')).toBe('/api/v1/payment-requests/pr%20a%2Fb');
    expect(engineUrl(undefined, 'http://x.test/api/v1/x/../payment-requests')).toBe('/api/v1/payment-requests');
  });
});
