// Sums the self time of a V8 .cpuprofile (as BENCH_PROFILE writes) by function and prints the
// heaviest ones, so a profile can be read without a browser.
// Run: node --import tsx bench/profile-summary.ts <file.cpuprofile> [--top 40]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values: opts, positionals } = parseArgs({ options: { top: { type: 'string', default: '40' } }, allowPositionals: true });
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Profile;
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
