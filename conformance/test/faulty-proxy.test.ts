/** The proxy the classifier builds implementations with: transparent unless a fault changes something. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../test/support/sandbox-server.js';
import { jsonResponse, startProxy, type Fault } from './faulty-proxy.js';
import { KEYS, idRemap } from './rewrites.js';

let server: RunningServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server.close();
});

async function through(fault: Omit<Fault, 'name' | 'description'>, use: (url: string) => Promise<void>): Promise<void> {
  const proxy = await startProxy(server.url, { name: 'test', description: 'test', ...fault });
  try {
    await use(proxy.url);
  } finally {
    await proxy.close();
  }
}

const headers = (key: string | null = KEYS.custodial) => ({
  ...(key ? { authorization: `Bearer ${key}` } : {}),
  'content-type': 'application/json',
});
const body = JSON.stringify({ amount: 1000, description: 'proxy', destinationWallet: 'a@example.com', metadata: { b: 1, a: 2 } });

describe('startProxy', () => {
  it('passes requests and responses through unchanged when the fault does nothing', async () => {
    await through({}, async (url) => {
      const created = await fetch(`${url}/api/v1/payment-requests`, { method: 'POST', headers: headers(), body });
      expect(created.status).toBe(201);
      const record = (await created.json()) as { id: string };
      expect(created.headers.get('location')).toBe(`/api/v1/payment-requests/${record.id}`);
      const direct = await fetch(`${server.url}/api/v1/payment-requests/${record.id}`, { headers: headers() });
      const proxied = await fetch(`${url}/api/v1/payment-requests/${record.id}`, { headers: headers() });
      expect(await proxied.text()).toBe(await direct.text());

      const malformed = await fetch(`${url}/api/v1/payment-requests`, { method: 'POST', headers: headers(), body: '{"amount": 1' });
      expect(malformed.status).toBe(400);
      expect(((await malformed.json()) as any).error.code).toBe('invalid_json');

      const noKey = await fetch(`${url}/api/v1/payment-requests/${record.id}`);
      expect(noKey.status).toBe(401);
      expect(noKey.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });
  });

  it('rewrites JSON bodies and statuses, and answers on its own', async () => {
    await through(
      {
        request(req) {
          if (req.path.endsWith('/teapot')) return jsonResponse(418, { teapot: true });
          if (req.route === 'create') req.body.amount = 2000;
          return undefined;
        },
        response(req, res) {
          if (req.route === 'create') {
            res.status = 202;
            res.body.extra = 'yes';
          }
        },
      },
      async (url) => {
        const created = await fetch(`${url}/api/v1/payment-requests`, { method: 'POST', headers: headers(), body });
        expect(created.status).toBe(202);
        const record = (await created.json()) as any;
        expect(record).toMatchObject({ amount: 2000, feeAmount: 10, extra: 'yes' });
        const teapot = await fetch(`${url}/teapot`);
        expect(teapot.status).toBe(418);
        expect(await teapot.json()).toEqual({ teapot: true });
      },
    );
  });

  it('remaps ids consistently both ways', async () => {
    let n = 0;
    await through(idRemap(() => `pr_client${++n}`), async (url) => {
      const created = await fetch(`${url}/api/v1/payment-requests`, { method: 'POST', headers: headers(), body });
      const record = (await created.json()) as any;
      expect(record.id).toBe('pr_client1');
      expect(created.headers.get('location')).toBe('/api/v1/payment-requests/pr_client1');
      const read = await fetch(`${url}/api/v1/payment-requests/pr_client1`, { headers: headers() });
      expect(((await read.json()) as any).id).toBe('pr_client1');
      const status = await fetch(`${url}/api/v1/payment-requests/pr_client1/status`, { headers: headers() });
      expect(await status.json()).toEqual({ status: 'pending' });
      const completed = await fetch(`${url}/sandbox/v1/payment-requests/pr_client1/complete`, { method: 'POST', headers: headers(), body: '{}' });
      expect(((await completed.json()) as any)).toMatchObject({ id: 'pr_client1', status: 'completed' });
      expect((await fetch(`${url}/api/v1/payment-requests/pr_client2`, { headers: headers() })).status).toBe(404);
    });
  });
});
