/**
 * Where a request's CPU time goes, from the V8 CPU profiles `BENCH_CPU_PROF=DIR npm run bench`
 * writes: for each measured case, the samples of its server's main thread taken while that case's
 * rounds ran (the bench writes their time windows to DIR/windows.json), divided by the requests
 * answered then, and split by stage: Node's HTTP and sockets, Fastify, our transport, the request
 * log, the engine's stages, the collector.
 *
 * `npx tsx bench/profile-summary.ts DIR [TOP]` prints the stage table and each case's TOP (default
 * 12) functions by self time; the bench prints the table itself at the end of a profiled run.
 *
 * A sample goes to the innermost frame on its stack that belongs to a stage. Frames of no stage
 * (V8 builtins such as JSON.stringify, Node's own modules other than HTTP and sockets, shared
 * helpers such as @noble/hashes) are charged to their caller's stage: a SHA-256 the engine runs
 * while creating is the engine's creating, not "hashing". Only the main thread is sampled, so a
 * stage's figure leaves out the collector's helper threads and libuv's pool, which /proc counts
 * (the case table's CPU us/req). Profiling itself slows every frame a little, alike in every server.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The time window of one measured round, on the monotonic clock profiles use (microseconds). */
export interface ProfileWindow {
  case: string;
  pid: number;
  startUs: number;
  endUs: number;
  /** 2xx answers in the window. */
  requests: number;
}

/** The file the bench writes the windows of a profiled run to, in the profile directory. */
export const WINDOWS_FILE = 'windows.json';

/** A case's CPU time per request by stage (microseconds), from its server's profile. */
export interface CaseProfile {
  case: string;
  requests: number;
  /** Main-thread time sampled per request, idle excluded. */
  totalUs: number;
  stages: Record<string, number>;
  /** The functions with the most self time per request: `name (file:line)`, its stage, microseconds. */
  topFunctions: Array<[string, string, number]>;
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Stages, the first matching rule wins; tested against `url` with the checkout's root removed. */
const STAGE_RULES: Array<[stage: string, url: RegExp, functionName?: RegExp]> = [
  ['request log', /\/src\/http\/(?:request-log|log-output|batched-output|pretty-log)\.[jt]s$|node_modules\/(?:pino|sonic-boom|pino-std-serializers)\//],
  ['transport (src/http)', /\/src\/http\//],
  ['Fastify', /node_modules\/(?:fastify|find-my-way|@fastify|avvio|light-my-request|fast-querystring|fast-decode-uri-component|toad-cache|abstract-logging|safe-regex2|ret|fast-json-stringify|secure-json-parse)\//],
  ['engine: router', /\/src\/core\/pipeline\/router\.[jt]s$/],
  ['engine: serialization', /\/src\/core\/pipeline\/handler\.[jt]s$/, /^serialize$/],
  ['engine: serialization', /\/src\/core\/payments\/payment-request-view\.[jt]s$/],
  ['engine: dispatch', /\/src\/core\/pipeline\/(?:handler|route|route-auth)\.[jt]s$|\/src\/core\/routes\//],
  ['engine: auth', /\/src\/core\/accounts\//],
  ['engine: JSON parse', /\/src\/core\/pipeline\/json-(?:body|text)\.[jt]s$/],
  [
    'engine: validation',
    /\/src\/core\/pipeline\/(?:body-validator|schema-check|input-readers|detail-codes|query)\.[jt]s$|\/src\/core\/payments\/create-body\.[jt]s$|node_modules\/ajv\//,
  ],
  // Before the BOLT11 rule, whose pattern would take nostr-tools' and the relay's own copies of @noble/curves.
  ['Nostr: crypto (schnorr, ECDH, NIP-44)', /node_modules\/(?:nostr-tools|@nostr-relay\/[\w-]+)\/node_modules\/|node_modules\/@noble\/ciphers\//],
  ['Nostr: relay', /\/src\/nostr\/relay\/|node_modules\/@nostr-relay\//],
  ['Nostr: NIP-47 (src/nostr, nostr-tools)', /\/src\/nostr\/|node_modules\/nostr-tools\//],
  ['WebSocket (ws)', /node_modules\/ws\//],
  ['engine: wallets', /\/src\/core\/wallets\//],
  ['engine: BOLT11 invoice', /\/src\/lightning\/|node_modules\/(?:tiny-secp256k1|@noble\/curves|@scure\/base)\//],
  ['engine: randomness, ids', /\/src\/core\/(?:random|ids)\.[jt]s$/],
  ['engine: store', /\/src\/store\//],
  ['engine: events, webhooks, due', /\/src\/core\/(?:events|webhooks|due)\//],
  ['engine: payment requests', /\/src\/core\/payments\//],
  ['engine: other', /\/src\/(?:core|clock|sandbox|webhook-sender)/],
  ['floor handler', /\/bench\/floor-server\.ts$/],
  [
    'Node: HTTP, sockets',
    /^node:(?:_http_\w+|http|net|stream|internal\/streams\/\w+|internal\/stream_base_commons|internal\/http|internal\/net|internal\/dns\/\w+)$/,
  ],
];

/**
 * Node's native writes, where the kernel's time (for a loopback socket, the receiving side's
 * TCP work too) lands: the same for every server answering the same bytes, and the noisiest
 * figure of all (other work on the machine stretches it), so shown apart from Node's JavaScript.
 */
const SYSCALL_WRITES = new Set(['writev', 'writeUtf8String', 'writeLatin1String', 'writeAsciiString', 'writeBuffer', 'writeString']);

/** Frames V8 names itself; the rest with no URL are builtins, charged to their caller. */
const V8_FRAMES: Record<string, string | null> = {
  '(garbage collector)': 'GC (main thread)',
  '(program)': 'V8, native (program)',
  '(idle)': null,
  '(root)': 'other',
};

/** Stages in the order tables show them. */
export const STAGE_ORDER = [
  'Node: socket writes (syscall)',
  'Node: HTTP, sockets',
  'Fastify',
  'transport (src/http)',
  'request log',
  'engine: router',
  'engine: dispatch',
  'engine: auth',
  'engine: JSON parse',
  'engine: validation',
  'engine: BOLT11 invoice',
  'engine: randomness, ids',
  'engine: payment requests',
  'engine: store',
  'engine: events, webhooks, due',
  'engine: serialization',
  'engine: wallets',
  'engine: other',
  'Nostr: relay',
  'Nostr: NIP-47 (src/nostr, nostr-tools)',
  'Nostr: crypto (schnorr, ECDH, NIP-44)',
  'WebSocket (ws)',
  'floor handler',
  'GC (main thread)',
  'V8, native (program)',
  'other',
];

/** Each case's CPU time per request by stage, from the profiles and windows in `dir`. */
export async function summarizeProfiles(dir: string, top = 12): Promise<CaseProfile[]> {
  const windows = JSON.parse(await readFile(join(dir, WINDOWS_FILE), 'utf8')) as ProfileWindow[];
  const files = (await readdir(dir)).filter((name) => name.endsWith('.cpuprofile'));
  const byPid = new Map<number, string>();
  // Node names them CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile; thread 0 is the main
  // thread (tsx's loader hooks run in another, with a profile of their own).
  for (const name of files) {
    const [, , , pid, thread] = name.split('.');
    if (thread === '0') byPid.set(Number(pid), name);
  }
  const cases = [...new Set(windows.map((w) => w.case))];
  const profiles = new Map<number, CpuProfile>();
  const summaries: CaseProfile[] = [];
  for (const name of cases) {
    const own = windows.filter((w) => w.case === name);
    const pid = own[0]!.pid;
    const file = byPid.get(pid);
    if (file === undefined) continue;
    if (!profiles.has(pid)) profiles.set(pid, JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile);
    summaries.push(summarizeCase(name, profiles.get(pid)!, own, top));
  }
  return summaries;
}

/** One case's figures from its server's profile and its windows. */
export function summarizeCase(name: string, profile: CpuProfile, windows: readonly ProfileWindow[], top = 12): CaseProfile {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const stageOfNode = new Map<number, string | null>();
  const stageOf = (id: number): string | null => {
    const known = stageOfNode.get(id);
    if (known !== undefined) return known;
    const node = nodes.get(id)!;
    const { functionName, url } = node.callFrame;
    let stage: string | null | undefined;
    if (url === '' && functionName in V8_FRAMES) stage = V8_FRAMES[functionName]!;
    else {
      const path = url.replace(/^file:\/\//, '');
      stage = STAGE_RULES.find(([, pattern, fn]) => pattern.test(path) && (fn === undefined || fn.test(functionName)))?.[0];
      if (stage === undefined) {
        const parent = parents.get(id);
        stage = parent === undefined ? 'other' : stageOf(parent);
        if (stage === 'Node: HTTP, sockets' && url === '' && SYSCALL_WRITES.has(functionName)) stage = 'Node: socket writes (syscall)';
      }
    }
    stageOfNode.set(id, stage);
    return stage;
  };

  const stageUs: Record<string, number> = {};
  const selfUs = new Map<number, number>();
  let sampledUs = 0;
  // timeDeltas[i] is the time from sample i-1 to sample i: the time sample i stands for.
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i]!;
    const delta = profile.timeDeltas[i + 1] ?? 0;
    if (!windows.some((w) => time >= w.startUs && time < w.endUs)) continue;
    const id = profile.samples[i]!;
    const stage = stageOf(id);
    if (stage === null) continue;
    stageUs[stage] = (stageUs[stage] ?? 0) + delta;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
    sampledUs += delta;
  }
  const requests = windows.reduce((sum, w) => sum + w.requests, 0);
  const perRequest = (us: number) => Math.round((us / Math.max(1, requests)) * 10) / 10;
  const byFunction = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    const where = url === '' ? '' : ` (${url.replace(/^.*\/(node_modules\/|src\/|bench\/)/, '$1')}:${lineNumber + 1})`;
    const key = `${functionName || '(anonymous)'}${where}\t${stageOf(id)}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  return {
    case: name,
    requests,
    totalUs: perRequest(sampledUs),
    stages: Object.fromEntries(STAGE_ORDER.filter((s) => stageUs[s] !== undefined).map((s) => [s, perRequest(stageUs[s]!)])),
    topFunctions: [...byFunction]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, us]): [string, string, number] => {
        const [fn, stage] = key.split('\t') as [string, string];
        return [fn, stage, perRequest(us)];
      }),
  };
}

/** The stage table: a row per stage, a column per case, microseconds of CPU per request. */
export function profileTable(summaries: readonly CaseProfile[]): string {
  const stages = STAGE_ORDER.filter((stage) => summaries.some((s) => s.stages[stage] !== undefined));
  const header = ['us CPU/request (main thread)', ...summaries.map((s) => s.case)];
  const rows = [
    ...stages.map((stage) => [stage, ...summaries.map((s) => (s.stages[stage] ?? 0).toFixed(1))]),
    ['total', ...summaries.map((s) => s.totalUs.toFixed(1))],
    ['requests profiled', ...summaries.map((s) => String(s.requests))],
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Each case's top functions by self time. */
export function topFunctionsText(summaries: readonly CaseProfile[]): string {
  return summaries
    .map((s) =>
      [`${s.case}: top functions by self time, us/request [stage]`, ...s.topFunctions.map(([fn, stage, us]) => `  ${us.toFixed(1).padStart(6)}  ${fn}  [${stage}]`)].join('\n'),
    )
    .join('\n\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [dir, top] = process.argv.slice(2);
  if (dir === undefined) {
    console.error('usage: npx tsx bench/profile-summary.ts DIR [TOP]  (DIR: the BENCH_CPU_PROF directory of a bench run)');
    process.exit(2);
  }
  const summaries = await summarizeProfiles(dir, top === undefined ? 12 : Number(top));
  console.log(`${profileTable(summaries)}\n\n${topFunctionsText(summaries)}`);
}
