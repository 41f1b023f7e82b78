// Gantry's TypeScript worker SDK: `serve(handler)` runs a RunPod-protocol worker loop.
export { serve } from './serve.js';
export type { Handler, ServeOptions, WorkerJob } from './types.js';
export { readEnvironment, WorkerConfigError, type WorkerEnvironment } from './environment.js';
