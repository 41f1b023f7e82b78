// Sums the self time of a V8 .cpuprofile (as BENCH_PROFILE writes) by function and prints the
// heaviest ones, so a profile can be read without a browser. With --lines, the heaviest source
// lines of the files whose address holds that text instead (a profile of BENCH_COMPILED servers),
// in percent of busy samples.
// Run: node --import tsx bench/profile-summary.ts <file.cpuprofile> [--top 40] [--lines dist/src/]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  /** Samples by line within the function, 1-based. */
  positionTicks?: { line: number; ticks: number }[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values: opts, positionals } = parseArgs({
  options: { top: { type: 'string', default: '40' }, lines: { type: 'string' } },
  allowPositionals: true,
});
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Profile;
if (opts.lines !== undefined) {
  printHotLines(opts.lines);
  process.exit(0);
}
const nameOf = new Map<number, string>();
for (const { id, callFrame: f } of profile.nodes) {
  const file = f.url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '');
  nameOf.set(id, `${f.functionName || '(anonymous)'} ${file ? `${file}:${f.lineNumber + 1}` : ''}`.trim());
}
const selfUs = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  total += delta;
  const name = nameOf.get(id)!;
  selfUs.set(name, (selfUs.get(name) ?? 0) + delta);
});
const idle = selfUs.get('(idle)') ?? 0;
console.log(`total ${(total / 1e6).toFixed(2)} s, busy ${((total - idle) / 1e6).toFixed(2)} s (percentages of busy time)`);
const top = [...selfUs]
  .filter(([name]) => name !== '(idle)')
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(opts.top));
for (const [name, us] of top)
  console.log(`${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / (total - idle)).toFixed(1).padStart(5)} %  ${name}`);

function printHotLines(urlPart: string): void {
  const ticks = new Map<string, number>();
  for (const { callFrame, positionTicks } of profile.nodes) {
    if (!callFrame.url.includes(urlPart)) continue;
    for (const { line, ticks: n } of positionTicks ?? []) {
      const key = `${callFrame.url}:${line}`;
      ticks.set(key, (ticks.get(key) ?? 0) + n);
    }
  }
  const idleIds = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  const busy = profile.samples.filter((id) => !idleIds.has(id)).length;
  const sources = new Map<string, string[]>();
  for (const [key, n] of [...ticks].sort((a, b) => b[1] - a[1]).slice(0, Number(opts.top))) {
    const at = key.lastIndexOf(':');
    const url = key.slice(0, at);
    const line = Number(key.slice(at + 1));
    if (!sources.has(url)) sources.set(url, readFileSync(new URL(url), 'utf8').split('\n'));
    const file = url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '');
    console.log(`${((100 * n) / busy).toFixed(1).padStart(5)} %  ${file}:${line}  ${sources.get(url)![line - 1]!.trim().slice(0, 100)}`);
  }
}
