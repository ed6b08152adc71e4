/**
 * `BENCH_ONLY=conformance npm run bench`: how long the conformance suite's full profile takes
 * against our server (issue 24's target: under 1 s warm). The server runs as users run it, in a
 * child process with the default flags; the suite runs here, with `--admin-key` (the fullest run:
 * every check, in accounts of its own, deleted at the end). Two warm-up runs, then
 * BENCH_CONFORMANCE_RUNS (default 9) timed ones, one after the other; the median is the figure,
 * every run is shown. A run that does not pass exits 1: then the time is not the suite's.
 */
import { runConformance } from '../conformance/run-conformance.js';
import { spawnServer } from './server-process.js';

const TARGET_MS = 1000;

export async function benchConformance(): Promise<void> {
  const runs = Math.max(1, Number(process.env.BENCH_CONFORMANCE_RUNS ?? 9));
  const server = spawnServer('conformance target', ['src/cli/main.ts', 'serve', '--port', '0']);
  try {
    const baseUrl = await server.url;
    const once = async () => {
      const started = performance.now();
      const result = await runConformance({ baseUrl, adminKey: 'sk_test_admin', profile: 'full' });
      const ms = performance.now() - started;
      if (!result.passed) throw new Error(`the full profile did not pass against our server: ${result.checks.filter((check) => check.outcome === 'failed').map((check) => `${check.id}: ${check.message}`).join('; ')}`);
      return { ms, checks: result.checks.length, skipped: result.counts.skipped };
    };
    await once();
    await once();
    const timed: Array<{ ms: number; checks: number; skipped: number }> = [];
    for (let run = 0; run < runs; run++) timed.push(await once());
    const sorted = timed.map((run) => run.ms).sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    console.log(
      `\nconformance, full profile with --admin-key against our server (${timed[0]!.checks} checks, ${timed[0]!.skipped} skipped: those need a paying NWC wallet):\n` +
        `  runs (ms): ${timed.map((run) => run.ms.toFixed(0)).join(', ')}\n` +
        `  median ${median.toFixed(0)} ms, target under ${TARGET_MS} ms: ${median < TARGET_MS ? 'met' : 'MISSED'}\n`,
    );
  } finally {
    await server.stop();
  }
}
