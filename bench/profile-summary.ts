/**
 * Where the CPU time of a server went under load, from a `node --cpu-prof` profile (for
 * example one written by `npm run bench -- --cpu-prof .tmp/prof`):
 *
 *   npx tsx bench/profile-summary.ts FILE.cpuprofile [--top N] [--requests N]
 *
 * Only the window in which requests were handled (by Fastify) is counted, so start-up (data load,
 * compilation) stays out; idle samples are left out of the percentages.
 * Prints self time by package or file, then the functions with the most self and total time, then
 * the time by the innermost frame of our own code on the stack: the hook, observer or handler that
 * was running, with the library and system calls it made (Fastify calls the next hook from the
 * previous one's `done`, so the innermost of our frames is the one at work); with --requests (the responses served in the window, e.g. warm-ups and runs from the bench's
 * JSON) also microseconds per request.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * A sample is "in a request" when a frame of these files (request time only) is on its stack:
 * Fastify's request handling.
 */
const REQUEST_FRAME = /node_modules\/fastify\/lib\/(handle-request|reply)\.js$/;
const IDLE = new Set(['(idle)']);

interface Tree {
  readonly byId: Map<number, ProfileNode>;
  readonly parent: Map<number, number>;
}

function tree(profile: Profile): Tree {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  return { byId, parent };
}

function stack(t: Tree, id: number): ProfileNode[] {
  const frames: ProfileNode[] = [];
  for (let at: number | undefined = id; at !== undefined; at = t.parent.get(at)) {
    const node = t.byId.get(at);
    if (node !== undefined) frames.push(node);
  }
  return frames;
}

/** "fastify", "pino", "dist/http/app.js", "node:internal/…", or "(garbage collector)". */
function owner(frame: CallFrame): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(frame.url);
  if (pkg?.[1] !== undefined) return pkg[1];
  const dist = /\/(dist\/.+)$/.exec(frame.url);
  if (dist?.[1] !== undefined) return dist[1];
  if (frame.url === '') return frame.functionName;
  return frame.url.startsWith('node:') ? frame.url.split('/').slice(0, 2).join('/') : frame.url;
}

function label(frame: CallFrame): string {
  const name = frame.functionName === '' ? '(anonymous)' : frame.functionName;
  return frame.url === '' ? name : `${name} ${owner(frame)}:${frame.lineNumber + 1}`;
}

/**
 * Sample indexes spanning the samples taken inside a request, less the first and last 0.5 %:
 * loading Fastify's modules at start-up also puts its files on the stack, a few times.
 */
function loadWindow(profile: Profile, t: Tree): [number, number] {
  const inRequest = profile.samples.flatMap((id, i) =>
    stack(t, id).some((n) => REQUEST_FRAME.test(n.callFrame.url)) ? [i] : [],
  );
  const at = (share: number): number =>
    inRequest[Math.min(inRequest.length - 1, Math.floor(inRequest.length * share))] ?? 0;
  return [at(0.005), at(0.995)];
}

function add(map: Map<string, number>, key: string, value: number): void {
  map.set(key, (map.get(key) ?? 0) + value);
}

interface Summary {
  readonly busyUs: number;
  readonly windowUs: number;
  readonly byOwner: Map<string, number>;
  readonly selfByFunction: Map<string, number>;
  readonly totalByFunction: Map<string, number>;
  readonly byOurFrame: Map<string, number>;
  readonly writesByOurFrame: Map<string, number>;
}

/** Our compiled modules, as `npm start` runs them. */
const OURS = /\/dist\//;
/** Native writes to a socket or file: the kernel's share of answering, the same for any server. */
const WRITE = new Set(['writev', 'writeString', 'writeBuffer', 'writeUtf8String']);

function summarise(profile: Profile): Summary {
  const t = tree(profile);
  const [first, last] = loadWindow(profile, t);
  const byOwner = new Map<string, number>();
  const selfByFunction = new Map<string, number>();
  const totalByFunction = new Map<string, number>();
  const byOurFrame = new Map<string, number>();
  const writesByOurFrame = new Map<string, number>();
  let busyUs = 0;
  let windowUs = 0;
  for (let i = first; i <= last; i++) {
    const us = profile.timeDeltas[i + 1] ?? 0;
    windowUs += us;
    const frames = stack(t, profile.samples[i] ?? -1);
    const top = frames[0]?.callFrame;
    if (top === undefined || IDLE.has(top.functionName)) continue;
    busyUs += us;
    add(byOwner, owner(top), us);
    add(selfByFunction, label(top), us);
    // A function counts once per sample, however often it recurses.
    for (const name of new Set(frames.map((f) => label(f.callFrame)))) {
      add(totalByFunction, name, us);
    }
    const ours = frames.find((f) => OURS.test(f.callFrame.url));
    const at = ours === undefined ? `(outside our code) ${owner(top)}` : label(ours.callFrame);
    add(byOurFrame, at, us);
    if (WRITE.has(top.functionName)) add(writesByOurFrame, at, us);
  }
  return {
    busyUs,
    windowUs,
    byOwner,
    selfByFunction,
    totalByFunction,
    byOurFrame,
    writesByOurFrame,
  };
}

function print(
  title: string,
  map: Map<string, number>,
  summary: Summary,
  top: number,
  requests: number | undefined,
): void {
  console.log(`\n${title}`);
  const rows = [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [name, us] of rows) {
    const pct = `${((100 * us) / summary.busyUs).toFixed(1).padStart(6)} %`;
    const perRequest =
      requests === undefined ? '' : `${(us / requests).toFixed(2).padStart(8)} µs/req`;
    console.log(`${pct}${perRequest}  ${name}`);
  }
}

function main(): void {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' }, requests: { type: 'string' } },
  });
  const file = positionals[0];
  if (file === undefined) {
    console.error(
      'Usage: npx tsx bench/profile-summary.ts FILE.cpuprofile [--top N] [--requests N]',
    );
    process.exit(2);
  }
  const summary = summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile);
  const top = Number(values.top);
  const requests = values.requests === undefined ? undefined : Number(values.requests);
  console.log(
    `${file}: load window ${(summary.windowUs / 1e6).toFixed(1)} s, busy ${(summary.busyUs / 1e6).toFixed(1)} s (percentages of busy time)`,
  );
  print('Self time by package / file', summary.byOwner, summary, top, requests);
  print('Self time by function', summary.selfByFunction, summary, top, requests);
  print(
    'Total time by function (callees included)',
    summary.totalByFunction,
    summary,
    top,
    requests,
  );
  print(
    'Time by the innermost frame of our code (hook, observer or handler at work)',
    summary.byOurFrame,
    summary,
    top,
    requests,
  );
  print(
    '  of which native socket or file writes',
    summary.writesByOurFrame,
    summary,
    top,
    requests,
  );
}

main();
