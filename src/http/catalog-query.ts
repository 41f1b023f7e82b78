// Query parameters of the catalog: comma-separated lists, checked the way the reference does.
// A malformed value is 422; a parameter used where it does not apply, or two that exclude each
// other, is 400.
import { ApiError } from '../domain/errors.js';

export class QueryCheck {
  private readonly malformed: string[] = [];
  private readonly conflicts: string[] = [];

  /** Splits `a,b` and checks each item against the allowed values or a pattern. */
  list(
    name: string,
    raw: string | undefined,
    rule: { values?: readonly string[]; pattern?: RegExp; maxItems?: number },
  ): string[] | undefined {
    if (raw === undefined) return undefined;
    const items = raw
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
    items.forEach((item, i) => {
      if (rule.values && !rule.values.includes(item))
        this.malformed.push(`${name}[${i}]: '${item}' is not one of ${rule.values.join(', ')}`);
      if (rule.pattern && !rule.pattern.test(item)) this.malformed.push(`${name}[${i}]: '${item}' does not match ${rule.pattern.source}`);
    });
    if (rule.maxItems !== undefined && items.length > rule.maxItems) this.malformed.push(`${name}: at most ${rule.maxItems} value(s)`);
    return items;
  }

  /** Checks one value against the allowed values, a pattern, or a test that `kind` names ("a power of two"). */
  value(
    name: string,
    raw: string | undefined,
    rule: { values?: readonly string[]; pattern?: RegExp; test?: (raw: string) => boolean; kind?: string },
  ): string | undefined {
    if (raw === undefined) return undefined;
    if (rule.values && !rule.values.includes(raw)) this.malformed.push(`${name}: '${raw}' is not one of ${rule.values.join(', ')}`);
    if (rule.pattern && !rule.pattern.test(raw)) this.malformed.push(`${name}: '${raw}' does not match ${rule.pattern.source}`);
    if (rule.test && !rule.test(raw)) this.malformed.push(`${name}: '${raw}' is not ${rule.kind ?? 'valid'}`);
    return raw;
  }

  conflict(condition: boolean, message: string): void {
    if (condition) this.conflicts.push(message);
  }

  /** Malformed values first (422), then conflicts between parameters (400). */
  done(): void {
    if (this.malformed.length > 0) throw new ApiError(422, 'query parameters are malformed', this.malformed);
    if (this.conflicts.length > 0) throw new ApiError(400, 'query parameters conflict', this.conflicts);
  }
}
