/**
 * `lnpr serve --data` when its disk or its files go wrong, as users run it (a child process): a
 * disk that fills up (a real 2 MiB tmpfs) and is freed again, a record edited by hand, a journal
 * torn by a crash, and who may read the files.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mountSmallDisk, type SmallDisk } from '../src/store/testing/small-disk.node.js';
import { runCli, startCliServer } from './support/cli-process.js';
import { api, createBody } from './support/sandbox-server.js';

const mounted = mountSmallDisk('2m');
const disk: SmallDisk | undefined = 'refused' in mounted ? undefined : mounted;
if (!disk) console.warn(`skipping the full-disk test: cannot mount a tmpfs (${(mounted as { refused: string }).refused}); it needs root`);
afterAll(() => disk?.unmount());

const dir = mkdtempSync(join(tmpdir(), 'lnpr-storage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The `n` of every payment request the server lists (each create below carries `metadata.n`). */
async function listedNumbers(url: string): Promise<number[]> {
  const res = await api(url, '/sandbox/v1/payment-requests?limit=1000');
  expect(res.status).toBe(200);
  return (res.body.data as Array<{ metadata: { n: number } }>).map((request) => request.metadata.n).sort((a, b) => a - b);
}

describe.skipIf(!disk)('lnpr serve --data on a disk that fills up', () => {
  it('answers 503 storage_unavailable and /healthz 503, logs ENOSPC, recovers by itself once there is room, and loses no 201', { timeout: 90_000 }, async () => {
    const file = join(disk!.directory, 'sandbox.json');
    const cli = await startCliServer(['--data', file]);
    let n = 0;
    const created: number[] = [];
    const create = async () => {
      const number = ++n;
      const res = await api(cli.url, '/api/v1/payment-requests', { body: createBody({ metadata: { n: number } }) });
      if (res.status === 201) created.push(number);
      return res;
    };
    for (let i = 0; i < 10; i++) expect((await create()).status).toBe(201);
    expect((await api(cli.url, '/healthz', { key: null })).status).toBe(200);

    disk!.fill();
    // The journal's last page may take a few more lines; then the disk refuses.
    let refused = await create();
    for (let i = 0; i < 50 && refused.status === 201; i++) refused = await create();
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ error: { code: 'storage_unavailable', message: expect.stringMatching(/cannot write to its storage/) } });
    for (let i = 0; i < 5; i++) expect((await create()).status).toBe(503);
    const health = await api(cli.url, '/healthz', { key: null });
    expect(health.status).toBe(503);
    expect(health.body.error.code).toBe('storage_unavailable');
    expect(cli.output().stderr).toContain(`lnpr-sandbox: cannot write ${file}.journal: ENOSPC: no space left on device`);
    // Reads go on, and show no refused create.
    expect(await listedNumbers(cli.url)).toEqual(created);

    disk!.free();
    const freedAt = Date.now();
    let recovered = false;
    while (!recovered && Date.now() - freedAt < 10_000) {
      recovered = (await api(cli.url, '/healthz', { key: null })).status === 200;
      if (!recovered) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const recoveryMs = Date.now() - freedAt;
    console.log(`recovered ${recoveryMs} ms after the disk was freed`);
    expect(recoveryMs).toBeLessThan(5_000);
    for (let i = 0; i < 50; i++) expect((await create()).status).toBe(201);
    expect(cli.output().stderr).toMatch(/writes are taken again after [\d.]+ s refused/);

    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    const restarted = await startCliServer(['--data', file]);
    try {
      expect(await listedNumbers(restarted.url)).toEqual(created);
    } finally {
      restarted.child.kill('SIGTERM');
      await restarted.exited;
    }
  });
});

describe('lnpr serve --data and its files', () => {
  it('refuses with exit 2 a data file whose record was edited to "status": "hacked", naming the file, the record and the field', { timeout: 60_000 }, async () => {
    const file = join(dir, 'hacked.json');
    const first = await startCliServer(['--data', file]);
    const { body: record } = await api(first.url, '/api/v1/payment-requests', { body: createBody() });
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const data = JSON.parse(readFileSync(file, 'utf8'));
    data.paymentRequests[0].status = 'hacked';
    writeFileSync(file, JSON.stringify(data));
    const second = runCli(['serve', '--port', '0', '--data', file]);
    try {
      const ended = await Promise.race([second.exited, new Promise((resolve) => setTimeout(() => resolve('still running after 20 s'), 20_000))]);
      expect(ended).toBe(2);
    } finally {
      second.child.kill('SIGKILL');
    }
    expect(second.output().stderr).toContain(
      `lnpr: ${file}: paymentRequests[0] is not a valid payment request: payment request ${record.id}: status must be one of pending, completed, expired, failed (it is "hacked")`,
    );
  });

  it('creates its files readable by their owner only, and says so when it drops a torn last journal line', { timeout: 60_000 }, async () => {
    const file = join(dir, 'torn.json');
    const first = await startCliServer(['--data', file]);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) ids.push((await api(first.url, '/api/v1/payment-requests', { body: createBody() })).body.id);
    for (const path of [file, `${file}.journal`, `${file}.lock`]) expect((statSync(path).mode & 0o777).toString(8), path).toBe('600');
    first.child.kill('SIGKILL');
    await first.exited;
    appendFileSync(`${file}.journal`, '{"seq":3,"op":"put","record":{"id":"pr_');

    const second = await startCliServer(['--data', file]);
    try {
      expect(second.output().stderr).toContain(`${file}.journal: dropped a torn last line (line 3, 39 bytes)`);
      for (const id of ids) expect((await api(second.url, `/api/v1/payment-requests/${id}`)).status).toBe(200);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
