// The server modules a benchmark's Gantry child runs: the TypeScript under src/ (through tsx), or,
// with BENCH_COMPILED set, the JavaScript `npm run build` wrote to dist/. tsx hands node each file
// as a single line, so a CPU profile of the TypeScript names no line; one of the compiled files does.
import type * as ConfigModule from '../../src/config.js';
import type * as ServerModule from '../../src/server.js';

const root = process.env.BENCH_COMPILED ? '../../dist/src' : '../../src';
export const { loadConfig } = (await import(`${root}/config.js`)) as typeof ConfigModule;
export const { startServer } = (await import(`${root}/server.js`)) as typeof ServerModule;
