// Preloaded into a chaos scenario's server (node --expose-gc --import ...): SIGUSR2 runs a full
// garbage collection, so a memory figure taken afterwards is the live heap, not pending garbage.
process.on('SIGUSR2', () => globalThis.gc?.());
