// Gantry's TypeScript worker SDK: `serve(handler)` runs a RunPod-protocol worker loop.
export { serve, type Handler, type ServeOptions, type WorkerJob } from './serve.js';
export { readEnvironment, WorkerConfigError, type WorkerEnvironment } from './environment.js';
