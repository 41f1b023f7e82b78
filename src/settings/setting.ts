// What the table says about one setting, and the names derived from it: the option key
// commander gives its flag, and the "--flag (ENV)" label used in messages.
import type { ValueType } from './value-types.js';

/** Settings that other settings' defaults are derived from; the table lists them first. */
export interface DerivationSources {
  readonly dataDir: string;
  readonly host: string;
  readonly port: number;
  readonly publicUrl: string;
}

/** A default computed from settings listed earlier in the table, as text parsed like given text. */
export interface DerivedDefault {
  readonly from: (earlier: DerivationSources) => string;
  /** The derivation in words, for `--help` and the docs. */
  readonly says: string;
}

export interface Setting<T> {
  /** As commander takes it: `--job-lease-ms <ms>`. */
  readonly flag: `--${string}`;
  readonly env: `GANTRY_${string}`;
  readonly type: ValueType<T>;
  /**
   * Text used when neither the flag nor the environment gives one, parsed like given text;
   * without a default the setting's value is undefined until given.
   */
  readonly default?: string | DerivedDefault;
  /** The default in words, when the bare text would not say enough. */
  readonly defaultMeans?: string;
  /** One line: what the setting controls. */
  readonly description: string;
}

type FlagWord<F extends string> = F extends `--${infer Word} ${string}` ? Word : F extends `--${infer Word}` ? Word : never;
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** The key commander stores a flag's value under: `--job-lease-ms <ms>` → `jobLeaseMs`. */
export type OptionKey<F extends string> = CamelCase<FlagWord<F>>;

export function optionKeyOf<F extends string>(flag: F): OptionKey<F> {
  const word = flag.replace(/^--/, '').split(' ')[0] ?? '';
  return word.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()) as OptionKey<F>;
}

/** How messages name a setting: `--job-lease-ms (GANTRY_JOB_LEASE_MS)`. */
export function labelOf(setting: Setting<unknown>): string {
  return `${setting.flag.split(' ')[0] ?? setting.flag} (${setting.env})`;
}

/** The default in words: its explanation, the derivation, the text, or "unset". */
export function defaultInWords(setting: Setting<unknown>): string {
  if (setting.defaultMeans !== undefined) return setting.defaultMeans;
  if (setting.default === undefined) return 'unset';
  return typeof setting.default === 'string' ? setting.default : setting.default.says;
}

/** A setting's `--help` line: what it controls, where else it can be set, and its default. */
export function helpLine(setting: Setting<unknown>): string {
  return `${setting.description} (env ${setting.env}; default: ${defaultInWords(setting)})`;
}
