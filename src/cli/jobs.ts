// `gantry jobs run|run-batch|runsync|status|stream|cancel|retry`: jobs on a queue endpoint, through the
// queue API a RunPod client uses.
import { randomUUID } from 'node:crypto';
import { Command } from 'commander';
import { clientFrom, LONGEST_RATE_WAIT_SECONDS, whileReachable, type ApiClient } from './remote/api-client.js';
import { batchOutcome, jobsFromLines, requestsOf, withLines } from './remote/job-batches.js';
import { integer } from './remote/flag-values.js';
import { JOB_LIMITS } from '../domain/job-state.js';
import { readText, sourceName } from './remote/json-input.js';
import { CliError } from './options.js';
import { ChunkAssembler } from './remote/stream-chunks.js';
import {
  exitStatusOf,
  queuePath,
  runBody,
  showJob,
  TERMINAL,
  waitUntilFinished,
  type InputFlags,
  type JobStatus,
} from './remote/jobs-api.js';
import { remoteCommand } from './remote/resource.js';
import type { ConnectionFlags } from './remote/connection.js';
import { print, printJson, withQuiet, type OutputFlags } from './output/print.js';
import { withSpinner } from './output/spinner.js';

type Flags = ConnectionFlags & OutputFlags;

function withInput(command: Command): Command {
  return command
    .argument('<endpoint>', 'the queue endpoint id')
    .option('-i, --input <json>', `the job's input, as JSON: '{"prompt": "hello"}'`)
    .option('--input-file <file>', 'the input from a JSON file (- for stdin); a file holding {"input": ...} is sent as the whole request')
    .option('--idempotency-key <key>', 'sent again with the same input within a day, answers the first job instead of queuing another');
}

type KeyFlags = { idempotencyKey?: string };

/** Submits with the key when one is given (and then retries a lost answer safely), else once. */
function submit<T>(client: ApiClient, path: string, body: unknown, flags: KeyFlags): Promise<T> {
  return flags.idempotencyKey === undefined
    ? client.call<T>('POST', path, body)
    : client.callWithKey<T>('POST', path, body, flags.idempotencyKey);
}

/** Prints the job; a command that waited for it exits 3 when it did not complete, a plain lookup 0. */
function finish(job: JobStatus, flags: Flags, waited = true): void {
  if (flags.json) printJson(job);
  else if (flags.quiet) print(job.id);
  else showJob(job);
  if (waited) process.exitCode = exitStatusOf(job);
}

function runCommand(): Command {
  return withQuiet(withInput(remoteCommand('run', 'queue a job and print its id at once'))).action(
    async (endpointId: string, flags: Flags & InputFlags & KeyFlags) => {
      const job = await submit<JobStatus>(clientFrom(flags), queuePath(endpointId, 'run'), runBody(flags), flags);
      finish(job, flags);
    },
  );
}

const DAY_SECONDS = 86_400;

function runBatchCommand(): Command {
  return remoteCommand('run-batch', 'queue the jobs of a JSON Lines file, one job per line, and print their ids in order')
    .argument('<endpoint>', 'the queue endpoint id')
    .argument('<file>', 'one job per line (- for stdin): its input, or a whole request {"input": ...}')
    .option(
      '--idempotency-key <prefix>',
      'the keys of the requests are <prefix>.1, <prefix>.2, ...: the same command run again within a day queues only what the first run did not',
    )
    .option(
      '--batch-size <n>',
      `jobs per request, at most ${JOB_LIMITS.runBatchMaxJobs} (each counts against the rate limits; a resumed run needs the same size)`,
      integer(1, JOB_LIMITS.runBatchMaxJobs),
    )
    .option(
      '--rate-limit-wait <seconds>',
      `wait out a full rate-limit window that resets within this many seconds (default ${LONGEST_RATE_WAIT_SECONDS}, a minute's; up to a day's ${DAY_SECONDS}); a longer one stops the run`,
      integer(0, DAY_SECONDS),
    )
    .action(async (endpointId: string, file: string, flags: Flags & KeyFlags & { batchSize?: number; rateLimitWait?: number }) => {
      const source = sourceName(file);
      const requests = requestsOf(jobsFromLines(readText(file), source), flags.batchSize);
      const client = clientFrom(flags);
      // Every request carries a key, so one that got no answer is sent again without queuing twice.
      const prefix = flags.idempotencyKey ?? randomUUID();
      const path = queuePath(endpointId, 'run-batch');
      const waiting = (line: number) => (seconds: number) =>
        process.stderr.write(`rate limit: waiting ${seconds} s for the window to reset, then sending line ${line} on\n`);
      const queued: { id: string; status: string }[] = [];
      for (const [index, request] of requests.entries()) {
        const body = { jobs: request.map((job) => job.body) };
        try {
          const key = `${prefix}.${index + 1}`;
          const answer = await client.callWithKey<{ jobs: { id: string; status: string }[] }>('POST', path, body, key, {
            waiting: waiting(request[0]!.line),
            longestWaitSeconds: flags.rateLimitWait,
          });
          queued.push(...answer.jobs);
          if (!flags.json) for (const job of answer.jobs) print(job.id);
        } catch (error) {
          if (!(error instanceof CliError)) throw error;
          if (flags.json) printJson(queued);
          throw new CliError(
            `${withLines(error.message, request, source)}\n${batchOutcome(error, request, source, queued.length, prefix)}`,
          );
        }
      }
      if (flags.json) printJson(queued);
    });
}

function runsyncCommand(): Command {
  return withQuiet(withInput(remoteCommand('runsync', 'run a job and wait for its result (exit 3 when it does not complete)'))).action(
    async (endpointId: string, flags: Flags & InputFlags & KeyFlags) => {
      const client = clientFrom(flags);
      const body = runBody(flags);
      const job = await withSpinner('job submitted', async (spinner) => {
        // Always keyed: a submit whose answer a restart cut off is sent again without queuing a second job.
        const key = flags.idempotencyKey ?? randomUUID();
        const first = await whileReachable(
          () => client.callWithKey<JobStatus>('POST', `${queuePath(endpointId, 'runsync')}?wait=60000`, body, key, { tries: 1 }),
          (why) => spinner.say(`${why}; trying again`),
        );
        return waitUntilFinished(client, endpointId, first, spinner);
      });
      finish(job, flags);
    },
  );
}

function statusCommand(): Command {
  return remoteCommand('status', "show a job's status and result")
    .argument('<endpoint>', 'the endpoint id')
    .argument('<job>', 'the job id')
    .option('-w, --wait', 'wait until the job is finished (exit 3 when it does not complete)')
    .action(async (endpointId: string, jobId: string, flags: Flags & { wait?: boolean }) => {
      const client = clientFrom(flags);
      let job = await client.call<JobStatus>('GET', queuePath(endpointId, 'status', jobId));
      if (flags.wait) job = await withSpinner(`job ${jobId}`, (spinner) => waitUntilFinished(client, endpointId, job, spinner));
      finish(job, flags, flags.wait === true);
    });
}

function streamCommand(): Command {
  return remoteCommand('stream', "print a job's streamed output as it arrives (--json: one JSON value per line)")
    .argument('<endpoint>', 'the endpoint id')
    .argument('<job>', 'the job id')
    .action(async (endpointId: string, jobId: string, flags: Flags) => {
      const client = clientFrom(flags);
      const status = await followStream(client, endpointId, jobId, flags);
      if (TERMINAL.has(status) && status !== 'COMPLETED') {
        const job = await client.call<JobStatus>('GET', queuePath(endpointId, 'status', jobId));
        process.stderr.write(`job ${jobId} ${job.status}${job.error ? `: ${job.error}` : ''}\n`);
        process.exitCode = exitStatusOf(job);
      }
    });
}

/** Reads /stream until the job is finished and nothing is left; answers the final status. */
async function followStream(client: ApiClient, endpointId: string, jobId: string, flags: Flags): Promise<string> {
  const assembler = new ChunkAssembler();
  let endsInNewline = true;
  for (;;) {
    const answer = await client.call<{ status: string; stream: { output: unknown }[] }>('GET', queuePath(endpointId, 'stream', jobId));
    for (const chunk of answer.stream) {
      const whole = assembler.add(chunk.output);
      if (!whole) continue;
      // Text streams (tokens) read naturally run together; anything else one JSON per line.
      const text = flags.json || typeof whole.value !== 'string' ? `${JSON.stringify(whole.value)}\n` : whole.value;
      process.stdout.write(text);
      endsInNewline = text.endsWith('\n');
    }
    if (TERMINAL.has(answer.status) && answer.stream.length === 0) {
      if (!endsInNewline) process.stdout.write('\n');
      return answer.status;
    }
  }
}

function simpleJobCommand(operation: 'cancel' | 'retry', description: string): Command {
  return remoteCommand(operation, description)
    .argument('<endpoint>', 'the endpoint id')
    .argument('<job>', 'the job id')
    .action(async (endpointId: string, jobId: string, flags: Flags) => {
      const job = await clientFrom(flags).call<JobStatus>('POST', queuePath(endpointId, operation, jobId));
      if (flags.json) printJson(job);
      else print(`job ${job.id} ${job.status}`);
    });
}

export function jobsCommand(): Command {
  return new Command('jobs')
    .description('run jobs on a queue endpoint and follow them')
    .addCommand(runCommand())
    .addCommand(runBatchCommand())
    .addCommand(runsyncCommand())
    .addCommand(statusCommand())
    .addCommand(streamCommand())
    .addCommand(simpleJobCommand('cancel', 'cancel a queued or running job'))
    .addCommand(simpleJobCommand('retry', 'queue a FAILED or TIMED_OUT job again'));
}
