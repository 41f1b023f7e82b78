// The container fields endpoints and templates share: image, command, environment, registry.
import type { Command } from 'commander';
import { envPair, setIfGiven } from './flag-values.js';

export interface ContainerFlags {
  image?: string;
  args?: string;
  env?: Record<string, string>;
  registry?: string;
}

export function addContainerFlags(command: Command): Command {
  return command
    .option('--image <image>', 'container image reference')
    .option('--args <command>', 'the command to run, as one string (replaces the image CMD)')
    .option(
      '--env <KEY=VALUE>',
      "an environment variable; repeat for more (merged with --file's env; on update, the whole env: give every variable)",
      envPair,
    )
    .option('--registry <id>', 'registry credential id for a private image (gantry registries)');
}

export function applyContainerFlags(flags: ContainerFlags, body: Record<string, unknown>): void {
  setIfGiven(body, 'image', flags.image);
  setIfGiven(body, 'args', flags.args);
  setIfGiven(body, 'registry', flags.registry);
  if (flags.env) body.env = { ...(body.env as Record<string, string> | undefined), ...flags.env };
}
