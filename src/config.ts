// Server configuration, read from the settings table (src/settings/table.ts): flags win over
// environment variables, which win over defaults. Every value is checked up front so a bad
// setting fails at start with a clear message, and the result is frozen: nothing changes it later.
import { SETTINGS, type SettingName, type Settings } from './settings/table.js';
import { labelOf, optionKeyOf, type DerivationSources, type OptionKey, type Setting } from './settings/setting.js';
import { InvalidValue, type ValueType } from './settings/value-types.js';

export { redact } from './settings/value-types.js';

type RateLimitSetting = 'rateLimitMinute' | 'rateLimitHour' | 'rateLimitDay';

/** A setting's value: what its type parses to, or undefined too when it has no default. */
type ValueOf<S> = S extends { type: ValueType<infer T> } ? (S extends { default: unknown } ? T : T | undefined) : never;

type SettingValues = { readonly [K in SettingName]: ValueOf<Settings[K]> };

export type RateLimitQuotas = Readonly<{ minute: number; hour: number; day: number }>;

export type GantryConfig = Readonly<Omit<SettingValues, RateLimitSetting> & { rateLimits: RateLimitQuotas }>;

/** Options as given on the command line, under the keys commander gives them; undefined means "not given". */
export type ConfigFlags = { [K in SettingName as OptionKey<Settings[K]['flag']>]?: string };

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const ENTRIES = Object.entries(SETTINGS) as [SettingName, Setting<unknown>][];

export function envNameOf(name: SettingName): string {
  return SETTINGS[name].env;
}

export function loadConfig(flags: ConfigFlags, env: Env = process.env): GantryConfig {
  const problems: string[] = [];
  const given = flags as Record<string, string | undefined>;
  const values: Record<string, unknown> = {};
  for (const [name, setting] of ENTRIES) {
    const text = nonEmpty(given[optionKeyOf(setting.flag)]) ?? nonEmpty(env[setting.env]);
    // Derived defaults read settings listed before them, which are parsed by now.
    const fallback = defaultText(setting, values as unknown as DerivationSources);
    try {
      values[name] = parse(setting, text ?? fallback);
    } catch (error) {
      if (!(error instanceof InvalidValue)) throw error;
      for (const reason of error.reasons) problems.push(`${labelOf(setting)} ${reason}`);
      // Settings derived from this one carry on from its default, so one mistake is one problem.
      values[name] = text === undefined ? undefined : parseQuietly(setting, fallback);
    }
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  const { rateLimitMinute, rateLimitHour, rateLimitDay, ...rest } = values as unknown as SettingValues;
  return Object.freeze({ ...rest, rateLimits: Object.freeze({ minute: rateLimitMinute, hour: rateLimitHour, day: rateLimitDay }) });
}

/**
 * The configuration of a server that asked for port 0 and got `port`: URLs that were derived
 * from port 0 name the real one.
 */
export function withPort(config: GantryConfig, port: number): GantryConfig {
  const fix = (url: string) => url.replace(/^(https?:\/\/[^/]+):0(?=\/|$)/, `$1:${port}`);
  return Object.freeze({
    ...config,
    port,
    publicUrl: fix(config.publicUrl),
    workerApiUrl: fix(config.workerApiUrl),
    replicaUrl: fix(config.replicaUrl),
    lbUrlPattern: fix(config.lbUrlPattern),
  });
}

function defaultText(setting: Setting<unknown>, earlier: DerivationSources): string | undefined {
  return typeof setting.default === 'object' ? setting.default.from(earlier) : setting.default;
}

function parse(setting: Setting<unknown>, text: string | undefined): unknown {
  return text === undefined ? undefined : setting.type.parse(text);
}

function parseQuietly(setting: Setting<unknown>, text: string | undefined): unknown {
  try {
    return parse(setting, text);
  } catch {
    return undefined;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
