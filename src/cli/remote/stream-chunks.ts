// Puts a job's streamed chunks back together as they arrive. A long string may come as several
// strings (printed one after the other, they are the whole); any other large value comes as
// parts {"gantryPart": {of, index, count, json}} to be joined in order and parsed.

interface Part {
  of: string;
  index: number;
  count: number;
  json: string;
}

export class ChunkAssembler {
  private readonly parts = new Map<string, Part[]>();

  /** The chunk's value once it is whole: at once for most, after the last part for split ones. */
  add(output: unknown): { value: unknown } | undefined {
    const part = asPart(output);
    if (!part) return { value: output };
    const collected = [...(this.parts.get(part.of) ?? []), part];
    if (collected.length < part.count) {
      this.parts.set(part.of, collected);
      return undefined;
    }
    this.parts.delete(part.of);
    const text = collected
      .sort((a, b) => a.index - b.index)
      .map((p) => p.json)
      .join('');
    return { value: JSON.parse(text) as unknown };
  }
}

function asPart(output: unknown): Part | undefined {
  if (typeof output !== 'object' || output === null || !('gantryPart' in output)) return undefined;
  const part = (output as { gantryPart: Part }).gantryPart;
  return typeof part.of === 'string' && typeof part.json === 'string' ? part : undefined;
}
