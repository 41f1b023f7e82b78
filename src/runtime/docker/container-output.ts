// A container's stdout and stderr, separated again (without a TTY the engine multiplexes them
// on one stream) and written to the worker's log buffer, as a process's pipes are.
import { Writable } from 'node:stream';
import type Docker from 'dockerode';
import type { LogBuffer } from '../log-buffer.js';

function into(logs: LogBuffer, source: 'stdout' | 'stderr'): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.write(source, chunk.toString());
      done();
    },
  });
}

/** Attaches before the container starts, so not even its first line is missed. */
export async function attachOutput(docker: Docker, container: Docker.Container, logs: LogBuffer): Promise<NodeJS.ReadableStream> {
  const stream = await container.attach({ stream: true, stdout: true, stderr: true });
  docker.modem.demuxStream(stream, into(logs, 'stdout'), into(logs, 'stderr'));
  return stream;
}
