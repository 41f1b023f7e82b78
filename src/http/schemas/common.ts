// Schema pieces shared by the management API's resources.
import { Type, type TOptional, type TSchema, type TUnsafe } from '@sinclair/typebox';

export const ProblemSchema = Type.Object(
  {
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    errors: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'Problem', description: 'application/problem+json error body' },
);

/** A string enum as a plain JSON Schema `enum`, so a bad value reports the allowed ones. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const CudaVersion = Type.String({
  pattern: '^\\d+\\.\\d+$',
  'x-pattern-message': 'must be a CUDA version major.minor, such as 12.4',
  description: 'major.minor',
});

/** vCPUs per worker or pod: a power of two within the flavor's range (checked against the catalog). */
export const VcpuCount = Type.Integer({ minimum: 2, maximum: 1024, description: "A power of two within the flavor's range" });

/** GPUs per worker or pod. */
export const GpuCount = Type.Integer({ minimum: 1, maximum: 16, description: 'GPUs per worker or pod' });

/** A pod's or template's volume on the host: at least 10 GB, as the hosted service requires. */
export const PersistentMount = Type.Object(
  {
    size: Type.Integer({ minimum: 10, maximum: 65536, description: 'GB; kept across stop and start, removed on terminate' }),
    path: Type.String({
      pattern: '^/',
      'x-pattern-message': 'must be an absolute path',
      description: 'Absolute mount path inside the container',
    }),
  },
  { additionalProperties: false, description: 'Storage that outlives container restarts' },
);

/** Container settings as a request may send them (all optional). */
export const containerRequestProperties = {
  image: Type.String({ minLength: 1, description: 'Container image reference' }),
  args: Type.String({
    description:
      'The container command as one string: a shell string (split into CMD words), or a JSON object string with entrypoint and/or cmd arrays; empty clears it',
  }),
  entrypoint: Type.Array(Type.String(), { description: 'Exec-form ENTRYPOINT; [] clears it' }),
  cmd: Type.Array(Type.String(), { description: 'Exec-form CMD; [] clears it' }),
  disk: Type.Integer({ minimum: 1, maximum: 65536, description: 'Container disk in GB' }),
  ports: Type.Array(Type.String(), { maxItems: 64, description: 'Exposed ports as port/protocol' }),
  env: Type.Record(Type.String(), Type.String(), {
    description:
      'Environment variables; a value may reference a secret of the account as {{ RUNPOD_SECRET_<name> }}, replaced when a worker starts',
  }),
  registry: Type.Union([Type.String({ minLength: 1 }), Type.Null()], { description: 'Registry credential id' }),
};

/** Container settings as responses always carry them. */
export const containerResponseProperties = {
  image: Type.String(),
  args: Type.String(),
  entrypoint: Type.Array(Type.String()),
  cmd: Type.Array(Type.String()),
  disk: Type.Integer(),
  ports: Type.Array(Type.String()),
  env: Type.Record(Type.String(), Type.String()),
  registry: Type.Union([Type.String(), Type.Null()]),
};

export function optionalAll<T extends Record<string, TSchema>>(properties: T) {
  return Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, Type.Optional(s)])) as {
    [K in keyof T]: TOptional<T[K]>;
  };
}

/** Error responses every authenticated management route may give. */
export function problemResponses(...statuses: number[]): Record<number, typeof ProblemSchema> {
  return Object.fromEntries([401, 403, 429, ...statuses].map((s) => [s, ProblemSchema]));
}
