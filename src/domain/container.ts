// Container settings shared by endpoints and templates: the command (args / entrypoint / cmd),
// ports and environment. Pure rules; violations are collected, never thrown one at a time.
import { join as shellJoin, split as shellSplit } from 'shlex';
import type { ContainerCommand, ContainerSettings } from './endpoint-spec.js';
import type { Violations } from './errors.js';

export interface CommandInput {
  args?: string;
  entrypoint?: string[];
  cmd?: string[];
}

/** Container settings as a create or update request may send them. */
export interface ContainerFields extends CommandInput {
  image?: string;
  disk?: number;
  ports?: string[];
  env?: Record<string, string>;
  registry?: string | null;
}

export const EMPTY_COMMAND: ContainerCommand = { args: '', entrypoint: [], cmd: [] };

/**
 * Reads `args`: empty clears the command; a JSON object string sets entrypoint and/or cmd
 * (a missing key means empty); anything else is a shell string split into CMD words.
 */
export function parseArgs(args: string, v: Violations, path = 'args'): Omit<ContainerCommand, 'args'> | undefined {
  const trimmed = args.trim();
  if (trimmed === '') return { entrypoint: [], cmd: [] };
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      v.add(path, 'looks like a JSON object but is not valid JSON');
      return undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      v.add(path, 'must be a JSON object with entrypoint and/or cmd');
      return undefined;
    }
    const record = parsed as Record<string, unknown>;
    let ok = true;
    for (const key of Object.keys(record)) {
      if (key !== 'entrypoint' && key !== 'cmd') {
        v.add(`${path}.${key}`, 'unknown key; a JSON args object holds only entrypoint and cmd');
        ok = false;
      }
    }
    const list = (key: 'entrypoint' | 'cmd'): string[] => {
      const value = record[key];
      if (value === undefined) return [];
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
        v.add(`${path}.${key}`, 'must be an array of strings');
        ok = false;
        return [];
      }
      return value as string[];
    };
    const result = { entrypoint: list('entrypoint'), cmd: list('cmd') };
    return ok ? result : undefined;
  }
  try {
    return { entrypoint: [], cmd: shellSplit(trimmed) };
  } catch (error) {
    v.add(path, `cannot be split into arguments: ${(error as Error).message}`);
    return undefined;
  }
}

/** The args string that stands for an exec-form command: shell words for CMD alone, else JSON. */
export function encodeArgs(entrypoint: string[], cmd: string[]): string {
  if (entrypoint.length === 0 && cmd.length === 0) return '';
  if (entrypoint.length === 0) return shellJoin(cmd);
  return JSON.stringify(cmd.length > 0 ? { entrypoint, cmd } : { entrypoint });
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/**
 * Applies command fields to the current command (empty on create). `args` replaces the whole
 * command and is kept exactly as sent; entrypoint / cmd sent with it must describe the same command.
 * entrypoint / cmd alone replace just their part, and args is re-encoded from the result.
 */
export function resolveCommand(input: CommandInput, current: ContainerCommand, v: Violations): ContainerCommand {
  // Only the command's own fields: callers spread the result over other settings.
  const unchanged = { args: current.args, entrypoint: current.entrypoint, cmd: current.cmd };
  if (input.args !== undefined) {
    const parsed = parseArgs(input.args, v);
    if (!parsed) return unchanged;
    if (input.entrypoint !== undefined && !sameList(input.entrypoint, parsed.entrypoint)) {
      v.add('entrypoint', `does not match args, which gives entrypoint ${JSON.stringify(parsed.entrypoint)}`);
    }
    if (input.cmd !== undefined && !sameList(input.cmd, parsed.cmd)) {
      v.add('cmd', `does not match args, which gives cmd ${JSON.stringify(parsed.cmd)}`);
    }
    return { args: input.args, ...parsed };
  }
  if (input.entrypoint === undefined && input.cmd === undefined) return unchanged;
  const entrypoint = input.entrypoint ?? current.entrypoint;
  const cmd = input.cmd ?? current.cmd;
  return { args: encodeArgs(entrypoint, cmd), entrypoint, cmd };
}

// Docker's reference grammar: [registry[:port]/]path[:tag][@digest]. The first component is a
// registry only with a dot or a port, or as localhost; path components are lower case.
const HOST_PART = '[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?';
const REGISTRY = `(?:localhost(?::[0-9]+)?|${HOST_PART}(?:\\.${HOST_PART})+(?::[0-9]+)?|${HOST_PART}:[0-9]+|\\[[0-9a-fA-F:]+\\](?::[0-9]+)?)`;
const PATH_PART = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const IMAGE_REFERENCE = new RegExp(
  `^(?:${REGISTRY}/)?${PATH_PART}(?:/${PATH_PART})*(?::[\\w][\\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$`,
);

/** Why an image reference cannot be pulled as written, if it cannot: the engine would refuse it at every start. */
export function checkImageReference(image: string, v: Violations): void {
  if (image.trim() === '') return v.add('image', 'must not be empty');
  if (image.length > 255 || !IMAGE_REFERENCE.test(image)) {
    v.add(
      'image',
      `'${image}' is not an image reference: [registry[:port]/]name[:tag][@digest], the name in lower case, such as ghcr.io/acme/worker:1.2`,
    );
  }
}

const PORT_PATTERN = /^(\d{1,5})\/(http|tcp|udp)$/;

/** The port and transport of a checked `port/protocol` entry: http is served over TCP. */
export function portTransport(port: string): { port: number; transport: 'tcp' | 'udp' } | undefined {
  const match = PORT_PATTERN.exec(port);
  if (!match) return undefined;
  return { port: Number(match[1]), transport: match[2] === 'udp' ? 'udp' : 'tcp' };
}
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Ports are `port/protocol` with a port from 1 to 65535, each listed once; env names are shell-safe. */
export function checkPortsAndEnv(settings: Pick<ContainerSettings, 'ports' | 'env'>, v: Violations): void {
  const seen = new Map<string, number>();
  settings.ports.forEach((port, i) => {
    const match = PORT_PATTERN.exec(port);
    const number = match ? Number(match[1]) : 0;
    if (!match || number < 1 || number > 65535) {
      v.add(`ports[${i}]`, `'${port}' must be port/protocol with a port from 1 to 65535 and protocol http, tcp or udp`);
      return;
    }
    const earlier = seen.get(port);
    if (earlier !== undefined) v.add(`ports[${i}]`, `duplicates ports[${earlier}]`);
    else seen.set(port, i);
  });
  for (const name of Object.keys(settings.env)) {
    if (!ENV_NAME_PATTERN.test(name)) {
      v.add(`env.${name}`, 'must be a valid environment variable name (letters, digits and _, not starting with a digit)');
    }
  }
}

/** Template values first, then the body's fields over them. */
export function applyContainerFields(base: ContainerSettings, body: ContainerFields, v: Violations): ContainerSettings {
  return {
    ...resolveCommand(body, base, v),
    image: body.image ?? base.image,
    disk: body.disk ?? base.disk,
    ports: body.ports ?? base.ports,
    env: body.env ?? base.env,
    registry: body.registry === undefined ? base.registry : body.registry,
  };
}

/** The body with its env merged over a template's, per key, the body winning. */
export function withTemplateEnv(templateEnv: Readonly<Record<string, string>>, body: ContainerFields): ContainerFields {
  return { ...body, env: body.env === undefined ? { ...templateEnv } : { ...templateEnv, ...body.env } };
}
