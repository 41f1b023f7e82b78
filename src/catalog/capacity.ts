// STUB — replaced by the catalog work.
import type { Catalog } from './catalog.js';

export class Capacity {}

export function loadCapacity(_file: string | undefined, _catalog: Catalog): Capacity {
  return new Capacity();
}
