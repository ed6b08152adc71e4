/**
 * The conformance suite as a classifier on generated implementations: every fault the mutation
 * operators make (fault-generator.ts) run through the faulty proxy in front of our server with the
 * `full` profile, and every conforming variant made from the open points. Writes the per-statement
 * and per-operator report (docs/data/generated-faults.json, written with LNPR_FAULTGEN_WRITE_REPORT=1,
 * as `npm run test:classifier` sets) and prints its tables.
 *
 * Faults the suite does not kill are its blind spots: they are listed in known-survivors.ts (the
 * next increment's input), and this test fails when a fault survives that is not listed there, or
 * when a listed one is now killed (so the list stays true). The default set is one mutant per
 * (statement, operator); `npm run test:classifier` (LNPR_FAULTGEN_SIZE=large) runs them all.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../test/support/sandbox-server.js';
import type { NodeSandboxOptions } from '../../src/sandbox.node.js';
import { ALL_CHECKS } from '../checks/index.js';
import { runConformance } from '../run-conformance.js';
import { heldBy } from '../statements.js';
import { DEFAULT_SEED, generateFaults, generateVariants, observableStatements, type GeneratedFault, type SetSize } from './fault-generator.js';
import { startProxy } from './faulty-proxy.js';
import { signWithKeysOf } from './invoice-forgery.js';
import { KNOWN_FAILING_VARIANTS, KNOWN_SURVIVORS } from './known-survivors.js';
import { OPERATOR_NAMES } from './mutation-operators.js';
import type { Hooks } from './proxy-hooks.js';
import { DEFAULT_ADMIN_KEY } from './run-keys.js';
import { pool } from './pool.js';

const SIZE: SetSize = process.env.LNPR_FAULTGEN_SIZE === 'large' ? 'large' : 'small';
/** Runs at once: each is a server, a proxy and ~100 requests; the machine is shared. */
const PARALLEL_RUNS = Number(process.env.LNPR_FAULTGEN_PARALLEL ?? 8);
const REPORT = fileURLToPath(new URL(`../../docs/data/generated-faults${SIZE === 'large' ? '-large' : ''}.json`, import.meta.url));

interface Verdict {
  killed: boolean;
  failed: string[];
  error?: string;
  ms: number;
}

/** The hooks, with any error they throw recorded: a fault that crashes the proxy (a 502) would be "killed" for the wrong reason. */
function watched(hooks: Hooks, errors: string[]): Hooks {
  const note = (error: unknown) => {
    errors.push(String((error as Error).stack ?? error).slice(0, 300));
    throw error;
  };
  return {
    ...(hooks.request ? { request: async (req, ctx) => { try { return await hooks.request!(req, ctx); } catch (error) { return note(error); } } } : {}),
    ...(hooks.response ? { response: async (req, res, ctx) => { try { await hooks.response!(req, res, ctx); } catch (error) { note(error); } } } : {}),
    ...(hooks.delivery ? { delivery: async (delivery, ctx) => { try { return await hooks.delivery!(delivery, ctx); } catch (error) { return note(error); } } } : {}),
  };
}

async function runOne(name: string, hooks: Hooks | undefined, sandbox: NodeSandboxOptions = {}): Promise<Verdict> {
  const started = performance.now();
  const server = await startServer(sandbox);
  const forgetKeys = signWithKeysOf(() => server.sandbox.store.accountRecords().flatMap((account) => (account.walletNodeKey ? [account.walletNodeKey] : [])));
  const hookErrors: string[] = [];
  const proxy = hooks ? await startProxy(server.url, { name, description: name, ...watched(hooks, hookErrors) }) : undefined;
  try {
    // The fullest run a sandbox allows: the full profile in accounts of its own (--admin-key), so the
    // accounts API, reset and the scratch-account checks are exercised too; faults follow the run's
    // keys (run-keys.ts).
    const result = await runConformance({ baseUrl: proxy?.url ?? server.url, adminKey: DEFAULT_ADMIN_KEY, profile: 'full' });
    const failed = result.checks.filter((c) => c.outcome === 'failed' || c.outcome === 'unexpected-pass').map((c) => c.id);
    if (hookErrors.length > 0) return { killed: false, failed, error: `the fault's own hooks threw: ${hookErrors[0]}`, ms: performance.now() - started };
    return { killed: !result.passed, failed, ms: performance.now() - started };
  } catch (error) {
    // A run that cannot complete against the target does not pass it: the fault is seen.
    if (hookErrors.length > 0) return { killed: false, failed: [], error: `the fault's own hooks threw: ${hookErrors[0]}`, ms: performance.now() - started };
    return { killed: true, failed: [], error: String((error as Error).message ?? error).slice(0, 200), ms: performance.now() - started };
  } finally {
    forgetKeys();
    await proxy?.close();
    await server.close();
  }
}


function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.min(70, Math.max(title.length, ...rows.map((row) => row[column]!.length))));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('-|-'), ...rows.map(line)].join('\n');
}

/** LNPR_FAULTGEN_ONLY=<regex>: only the faults whose id matches (while developing; the survivor list is not judged then). */
const ONLY = process.env.LNPR_FAULTGEN_ONLY ? new RegExp(process.env.LNPR_FAULTGEN_ONLY) : undefined;
const ALL_FAULTS = generateFaults(SIZE);
const FAULTS = ONLY ? ALL_FAULTS.filter((f) => ONLY.test(f.id)) : ALL_FAULTS;
const HELD = heldBy(ALL_CHECKS);

describe('the generated fault set', () => {
  it(`kills every generated fault not listed as a known survivor (${SIZE} set)`, { timeout: 1_800_000 }, async () => {
    const live = FAULTS.filter((f) => f.equivalent === undefined);
    const unique = [...new Map(live.map((f) => [f.key, f])).values()];
    const started = performance.now();
    const verdicts = new Map<string, Verdict>();
    const runs = await pool(unique, PARALLEL_RUNS, async (fault) => [fault.key, await runOne(fault.id, fault.apply())] as const);
    for (const [key, verdict] of runs) verdicts.set(key, verdict);
    const elapsed = (performance.now() - started) / 1000;

    const variants = ONLY ? [] : generateVariants();
    const built = variants.filter((v) => v.notGenerated === undefined);
    const variantRuns = await pool(built, PARALLEL_RUNS, async (v) => [v.id, await runOne(v.id, v.proxy?.(), v.sandbox)] as const);
    const variantVerdicts = new Map(variantRuns);

    const report = buildReport(FAULTS, verdicts, variants, variantVerdicts, unique.length);
    // Written when asked (`npm run test:classifier` does): which checks fail a fault varies a little
    // with timing, and a test run must not leave the checkout changed.
    if (!ONLY && process.env.LNPR_FAULTGEN_WRITE_REPORT === '1') writeFileSync(REPORT, `${JSON.stringify(report, null, 2)}\n`);
    console.log(
      `\nGenerated faults (${SIZE}, seed ${DEFAULT_SEED}): ${live.length} faults (${unique.length} distinct implementations) in ${elapsed.toFixed(1)} s, ${report.totals.killed} killed, ${report.totals.survived} survived; ${report.totals.equivalent} equivalent mutants listed\n` +
        table(['operator', 'generated', 'killed', 'survived', 'equivalent'], report.operators.map((o) => [o.operator, String(o.generated), String(o.killed), String(o.survived), String(o.equivalent)])) +
        `\n\nBroken mutants (their own hooks threw): ${report.broken.map((b) => `${b.id}: ${b.error}`).join('\n') || 'none'}` +
        `\n\nSurvivors:\n${report.survivors.map((s) => `  ${s.id}: ${s.describe}`).join('\n') || '  none'}` +
        `\n\nVariants: ${report.variants.filter((v) => v.passed === true).length} passed of ${built.length} built (${variants.length - built.length} readings not generated)\n` +
        report.variants.map((v) => `  ${v.id} ${v.passed === undefined ? `not generated: ${v.notGenerated}` : v.passed ? 'pass' : `FAIL ${v.failed.join(' ')}`}`).join('\n'),
    );

    // While developing (LNPR_FAULTGEN_ONLY): which checks killed each fault, so a kill for the wrong reason shows.
    if (ONLY) {
      console.log(`\nKilled by:\n${report.killedBy.map((k) => `  ${k.id}: ${k.checks.join(' ') || k.error}`).join('\n')}`);
      return;
    }
    const survivors = report.survivors.map((s) => s.id);
    const known = new Set(KNOWN_SURVIVORS[SIZE]);
    expect(survivors.filter((id) => !known.has(id)), 'faults that survive and are not listed in known-survivors.ts').toEqual([]);
    expect([...known].filter((id) => !survivors.includes(id) && FAULTS.some((f) => f.id === id)), 'listed survivors that are now killed (take them off the list)').toEqual([]);
    expect(report.broken.map((b) => b.id), 'generated faults whose own hooks threw (fix the operator)').toEqual([]);
    expect(report.variants.filter((v) => v.passed === false && KNOWN_FAILING_VARIANTS[v.id] === undefined).map((v) => `${v.id}: ${v.failed.join(' ')}${v.error ? ` (${v.error})` : ''}`), 'conforming variants that failed').toEqual([]);
    expect(Object.keys(KNOWN_FAILING_VARIANTS).filter((id) => report.variants.some((v) => v.id === id && v.passed === true)), 'listed failing variants that now pass (take them off the list)').toEqual([]);
  });
});

function buildReport(faults: GeneratedFault[], verdicts: Map<string, Verdict>, variants: ReturnType<typeof generateVariants>, variantVerdicts: Map<string, Verdict>, distinct: number) {
  const rows = faults.map((f) => {
    const v = f.equivalent === undefined ? verdicts.get(f.key) : undefined;
    const broken = v?.error?.startsWith("the fault's own hooks threw") === true;
    return { ...f, outcome: f.equivalent !== undefined ? 'equivalent' : broken ? 'broken' : v?.killed ? 'killed' : 'survived', failed: v?.failed ?? [], error: v?.error };
  });
  const count = (list: typeof rows) => ({
    generated: list.filter((r) => r.outcome !== 'equivalent').length,
    killed: list.filter((r) => r.outcome === 'killed').length,
    survived: list.filter((r) => r.outcome === 'survived').length,
    equivalent: list.filter((r) => r.outcome === 'equivalent').length,
    broken: list.filter((r) => r.outcome === 'broken').length,
    /** Killed only because the run refused to start (no check failed): weak kills, listed in `killedBy` with the error. */
    killedByRefusal: list.filter((r) => r.outcome === 'killed' && r.error !== undefined).length,
  });
  return {
    format: 'lnpr-generated-faults',
    version: 1,
    size: SIZE,
    seed: DEFAULT_SEED,
    runtime: { distinctImplementations: distinct, parallelRuns: PARALLEL_RUNS },
    totals: count(rows),
    operators: OPERATOR_NAMES.map((operator) => ({ operator, ...count(rows.filter((r) => r.operator === operator)) })),
    statements: observableStatements().map((s) => {
      const mine = rows.filter((r) => r.statement === s.id);
      return { id: s.id, level: s.level, observable: s.observable, heldBy: HELD.get(s.id) ?? [], ...count(mine), byOperator: Object.fromEntries(OPERATOR_NAMES.map((o) => [o, count(mine.filter((r) => r.operator === o))]).filter(([, c]) => (c as any).generated + (c as any).equivalent > 0)) };
    }),
    survivors: rows.filter((r) => r.outcome === 'survived').map((r) => ({ id: r.id, statement: r.statement, operator: r.operator, describe: r.describe })),
    equivalents: rows.filter((r) => r.outcome === 'equivalent').map((r) => ({ id: r.id, statement: r.statement, operator: r.operator, describe: r.describe, reason: r.equivalent })),
    broken: rows.filter((r) => r.outcome === 'broken').map((r) => ({ id: r.id, describe: r.describe, error: r.error })),
    killedBy: rows.filter((r) => r.outcome === 'killed').map((r) => ({ id: r.id, checks: r.failed, ...(r.error ? { error: r.error } : {}) })),
    variants: variants.map((v) => {
      const verdict = variantVerdicts.get(v.id);
      return { id: v.id, point: v.point, reading: v.reading, describe: v.describe, passed: verdict === undefined ? undefined : !verdict.killed, failed: verdict?.failed ?? [], ...(v.notGenerated ? { notGenerated: v.notGenerated } : {}), ...(verdict?.error ? { error: verdict.error } : {}) };
    }),
  };
}
