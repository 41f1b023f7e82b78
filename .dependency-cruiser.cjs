// The layering of src/, kept by `npm run lint:layers` (dependency-cruiser). Layers are listed
// bottom up: a module may import its own layer and the ones listed before it, never one after.
// docs/architecture.md draws the same table; change both together.
const layers = [
  { name: 'domain', path: '^src/domain/' },
  { name: 'config', path: ['^src/(config|paths)\\.ts$', '^src/settings/'] },
  { name: 'catalog', path: '^src/catalog/' },
  { name: 'store', path: '^src/store/' },
  { name: 'cluster', path: '^src/cluster/' },
  { name: 'runtime', path: '^src/runtime/' },
  { name: 'services', path: '^src/services/' },
  { name: 'http', path: '^src/http/' },
  { name: 'balancer', path: '^src/balancer/' },
  { name: 'doctor', path: '^src/doctor/' },
  { name: 'app', path: '^src/app\\.ts$' },
  { name: 'compose', path: '^src/compose\\.ts$' },
  { name: 'server', path: '^src/(server|reserve-port)\\.ts$' },
  { name: 'cli', path: '^src/cli/' },
];

const upward = layers.slice(0, -1).map((layer, index) => ({
  name: `${layer.name}-imports-upward`,
  comment: `${layer.name} may import only ${layers
    .slice(0, index + 1)
    .map((l) => l.name)
    .join(', ')}`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: layers.slice(index + 1).flatMap((l) => l.path) },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-cycles',
      comment: 'modules must not import each other, directly or through others',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      // The worker SDK is published on its own (gantry/worker): it stands apart from the server.
      name: 'worker-sdk-stands-alone',
      severity: 'error',
      from: { path: '^src/worker/' },
      to: { path: '^src/', pathNot: '^src/worker/' },
    },
    {
      name: 'server-does-not-use-worker-sdk',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/worker/' },
      to: { path: '^src/worker/' },
    },
    {
      name: 'every-module-in-a-layer',
      comment: 'a new top-level file or folder under src/ must be given a layer here',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: [...layers.flatMap((l) => l.path), '^src/worker/'],
      },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a layer that names a higher layer's types depends on it.
    tsPreCompilationDeps: true,
  },
};
