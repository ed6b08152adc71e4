/**
 * The dashboard's `GET /dashboard/api/key` through the real server: what the key it sends may do
 * (so the page offers a read-only key no editor it could not use), with the control surface's
 * rules (a key of an account, the sandbox's own or loopback origins, off with the controls).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

const PATH = '/dashboard/api/key';

describe('GET /dashboard/api/key', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it("answers the key's permissions, and nothing else", async () => {
    const full = await server.api(PATH, { key: KEYS.custodial });
    expect(full.status).toBe(200);
    expect(full.body).toEqual({ permissions: ['create', 'read'] });
    expect(full.headers.get('cache-control')).toBe('no-store');
    expect((await server.api(PATH, { key: KEYS.nwc })).body).toEqual({ permissions: ['create', 'read'] });
    expect((await server.api(PATH, { key: KEYS.readonly })).body).toEqual({ permissions: ['read'] });
  });

  it("refuses as the control API does: no key, an unknown key, a key without an account, a foreign origin", async () => {
    for (const key of [null, 'sk_test_nobody']) {
      const refused = await server.api(PATH, { key });
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('unauthorized');
      expect(refused.headers.get('www-authenticate')).toContain('Bearer');
    }
    expect((await server.api(PATH, { key: KEYS.admin })).status).toBe(401);
    const foreign = await server.api(PATH, { key: KEYS.custodial, headers: { origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('origin_not_allowed');
    const local = await server.api(PATH, { key: KEYS.custodial, headers: { origin: 'http://localhost:5173' } });
    expect(local.status).toBe(200);
    expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
  });

  it('is not served without the controls', async () => {
    const off = await startServer({ settings: { controls: false } });
    try {
      expect((await off.api(PATH, { key: KEYS.custodial })).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
