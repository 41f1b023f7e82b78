/** Milliseconds since the epoch, as a service reads the time: injected, so tests and replicas can choose it. */
export type Clock = () => number;
