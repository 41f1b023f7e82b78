// Builds the fuzz requests for every route from the values in values.ts: path, method, auth,
// body, type confusion, oversize and query variants, then a seeded random mix of all of them.
import type { Prng } from '../prng.js';
import type { Route } from './routes.js';
import { BAD_AUTHORIZATIONS, CONTENT_TYPES, ID_VARIANTS, INVALID_JSON, nested, QUERIES, WRONG_VALUES } from './values.js';

export interface FuzzIds {
  endpointId: string;
  lbEndpointId: string;
  jobId: string;
  workerId: string;
  templateId: string;
}

export interface FuzzKeys {
  admin: string;
  readOnly: string;
  otherAccount: string;
  revoked: string;
  workerCredential: string;
}

export interface FuzzRequest {
  /** What kind of malformation this is, for the report. */
  kind: string;
  /** The route template it aims at (`POST /v2/{endpointId}/run`), for grouping findings. */
  route: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Built at send time: the oversized ones are tens of megabytes. */
  body?: () => string;
  /** The load-balancing endpoint has no worker: its worker-defined paths may answer 503. */
  toWorkerlessBalancer: boolean;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

function validBody(route: Route): Record<string, unknown> | undefined {
  const { method, template } = route;
  if (method === 'POST' && template === '/v2/serverless') {
    return {
      name: 'fuzz',
      type: 'QUEUE',
      image: 'fuzz/x:1',
      cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
      scaling: { type: 'QUEUE_DELAY', queueDelay: 2 },
      workers: { min: 0, max: 1, idleTimeout: 5 },
      env: { A: 'b' },
      timeout: 1000,
    };
  }
  if (method === 'PATCH' && template === '/v2/serverless/{id}')
    return { name: 'fuzzed', workers: { min: 0, max: 2 }, scaling: { type: 'QUEUE_DELAY', queueDelay: 3 }, env: { B: 'c' } };
  if (template.startsWith('/v2/templates') && (method === 'POST' || method === 'PATCH'))
    return { name: 'fuzz-template', image: 'fuzz/t:1', env: { A: 'b' }, isServerless: true };
  if (template.endsWith('/run') || template.endsWith('/runsync'))
    return { input: { a: 1 }, policy: { ttl: 60_000, executionTimeout: 1000 }, webhook: 'http://127.0.0.1:9/hook' };
  if (template.includes('/job-done/') || template.includes('/job-stream/')) return { output: { a: 1 } };
  return undefined;
}

export class RequestFactory {
  constructor(
    private readonly ids: FuzzIds,
    private readonly keys: FuzzKeys,
  ) {}

  /** The route's path with its parameters filled; `override` replaces one parameter's value. */
  private path(route: Route, override?: { param: string; value: string }): string {
    const filled = route.template.replace(/\{(\w+)\}/g, (_, param: string) => {
      if (override?.param === param) return override.value;
      return this.realValue(route, param);
    });
    return filled + this.defaultQuery(route);
  }

  private realValue(route: Route, param: string): string {
    // A fuzzer must not delete the resources the rest of the run needs.
    if (route.method === 'DELETE' && (param === 'id' || param === 'endpointId')) return 'fuzz-unknown-id';
    if (param === 'id') {
      if (route.template.startsWith('/v2/templates')) return this.ids.templateId;
      if (route.template.startsWith('/v2/catalog/cpus')) return 'cpu3c';
      if (route.template.startsWith('/v2/catalog')) return 'fuzz-catalog-id';
      return this.ids.endpointId;
    }
    const values: Record<string, string> = {
      endpointId: this.ids.endpointId,
      jobId: this.ids.jobId,
      workerId: this.ids.workerId,
      lbEndpointId: this.ids.lbEndpointId,
      workerPath: 'echo/path',
    };
    return values[param] ?? 'fuzz-param';
  }

  private defaultQuery(route: Route): string {
    // Long-polls and log follows would hold a request open; the fuzzer wants an answer.
    if (route.template.endsWith('/runsync') || route.template.includes('/status-sync/')) return '?wait=1000';
    if (route.template.endsWith('/logs')) return '?follow=false';
    return '';
  }

  private goodAuth(route: Route): Record<string, string> {
    if (route.auth === 'worker') return { authorization: this.keys.workerCredential };
    if (route.auth === 'open') return {};
    return { authorization: `Bearer ${this.keys.admin}` };
  }

  private make(route: Route, kind: string, parts: Partial<FuzzRequest> & { body?: () => string } = {}): FuzzRequest {
    const method = parts.method ?? route.method;
    const path = parts.path ?? this.path(route);
    return {
      kind,
      route: `${route.method} ${route.template}`,
      method,
      path,
      headers: parts.headers ?? this.goodAuth(route),
      body: method === 'GET' || method === 'HEAD' ? undefined : parts.body,
      toWorkerlessBalancer: path.startsWith(`/v2/lb/${this.ids.lbEndpointId}/`),
    };
  }

  private jsonBody(route: Route, text: string, kind: string, contentType = 'application/json'): FuzzRequest {
    return this.make(route, kind, { headers: { ...this.goodAuth(route), 'content-type': contentType }, body: () => text });
  }

  pathVariants(route: Route): FuzzRequest[] {
    const params = [...route.template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    return params.flatMap((param) =>
      ID_VARIANTS.map((value) => {
        const body = validBody(route);
        return this.make(route, 'path-param', {
          path: this.path(route, { param, value }),
          headers: { ...this.goodAuth(route), ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? () => JSON.stringify(body) : undefined,
        });
      }),
    );
  }

  methodVariants(route: Route): FuzzRequest[] {
    return METHODS.filter((method) => method !== route.method).map((method) => this.make(route, 'wrong-method', { method }));
  }

  authVariants(route: Route): FuzzRequest[] {
    const keys =
      route.auth === 'worker'
        ? [`Bearer ${this.keys.admin}`, this.keys.admin, this.keys.revoked, `Bearer ${this.keys.workerCredential}`]
        : [
            `Bearer ${this.keys.revoked}`,
            `Bearer ${this.keys.otherAccount}`,
            `Bearer ${this.keys.readOnly}`,
            this.keys.workerCredential,
            `Bearer ${this.keys.workerCredential}`,
          ];
    const body = validBody(route);
    const withBody: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
    return [...BAD_AUTHORIZATIONS, ...keys, undefined].map((authorization) =>
      this.make(route, 'auth', {
        headers: authorization === undefined ? withBody : { authorization, ...withBody },
        body: body ? () => JSON.stringify(body) : undefined,
      }),
    );
  }

  bodyVariants(route: Route): FuzzRequest[] {
    const valid = JSON.stringify(validBody(route) ?? {});
    return [
      ...INVALID_JSON.map((text) => this.jsonBody(route, text, 'invalid-json')),
      this.jsonBody(route, '', 'empty-json-body'),
      this.make(route, 'no-content-type', { body: () => valid }),
      ...CONTENT_TYPES.map((type) => this.jsonBody(route, valid, 'content-type', type)),
      this.jsonBody(route, nested(5000, 'array'), 'nesting-5000'),
      this.jsonBody(route, nested(5000, 'object'), 'nesting-5000'),
      this.jsonBody(route, JSON.stringify({ input: JSON.parse(nested(2000, 'object')) }), 'nesting-2000-in-input'),
      this.jsonBody(route, '[]', 'json-array-body'),
      this.jsonBody(route, '"string"', 'json-string-body'),
      this.jsonBody(route, '12', 'json-number-body'),
      this.jsonBody(route, 'null', 'json-null-body'),
    ];
  }

  typeConfusion(route: Route): FuzzRequest[] {
    const base = validBody(route);
    if (!base) return [];
    const requests: FuzzRequest[] = [];
    const marker = '"__FUZZ_VALUE__"';
    const substitute = (path: string[]) => {
      const copy = structuredClone(base) as Record<string, any>;
      let holder: Record<string, any> = copy;
      for (const key of path.slice(0, -1)) holder = holder[key] as Record<string, any>;
      holder[path.at(-1)!] = '__FUZZ_VALUE__';
      const text = JSON.stringify(copy);
      for (const value of WRONG_VALUES) requests.push(this.jsonBody(route, text.replace(marker, value), `type:${path.join('.')}`));
    };
    const fields = new Set([...Object.keys(base), ...route.bodyFields]);
    for (const field of fields) {
      substitute([field]);
      const nestedValue = base[field];
      if (nestedValue && typeof nestedValue === 'object' && !Array.isArray(nestedValue)) {
        for (const inner of Object.keys(nestedValue)) substitute([field, inner]);
      }
    }
    return requests;
  }

  oversize(route: Route): FuzzRequest[] {
    const limit = route.bodyLimit;
    if (!limit) return [];
    // A valid-looking document padded to exactly one byte over the documented limit.
    const body = () => {
      const head = '{"input":{"pad":"';
      const tail = '"}}';
      return head + 'p'.repeat(limit + 1 - head.length - tail.length) + tail;
    };
    return [this.make(route, 'one-byte-over-limit', { headers: { ...this.goodAuth(route), 'content-type': 'application/json' }, body })];
  }

  queryVariants(route: Route): FuzzRequest[] {
    const path = this.path(route).split('?')[0]!;
    return QUERIES.map((query) => this.make(route, 'query', { path: `${path}?${query}` }));
  }

  /** Everything for one route, the systematic part. */
  all(route: Route): FuzzRequest[] {
    return [
      ...this.pathVariants(route),
      ...this.methodVariants(route),
      ...this.authVariants(route),
      ...this.bodyVariants(route),
      ...this.typeConfusion(route),
      ...this.oversize(route),
      ...this.queryVariants(route),
    ];
  }

  /** Random recombinations: one route's path with another's body and a random key and content type. */
  randomMix(routes: Route[], prng: Prng, count: number): FuzzRequest[] {
    const systematic = routes.map((route) => ({ route, requests: this.all(route).filter((r) => r.kind !== 'one-byte-over-limit') }));
    return Array.from({ length: count }, () => {
      const donor = prng.pick(systematic);
      const shape = prng.pick(donor.requests);
      const target = prng.pick(routes);
      const method = prng.next() < 0.8 ? target.method : prng.pick(METHODS);
      const path =
        prng.next() < 0.5
          ? this.path(target)
          : prng.pick(
              this.pathVariants(target)
                .map((r) => r.path)
                .concat(this.path(target)),
            );
      return this.make(target, `mix:${shape.kind}`, {
        method,
        path,
        headers:
          prng.next() < 0.7
            ? shape.headers
            : {
                ...this.goodAuth(target),
                ...(shape.headers['content-type'] !== undefined ? { 'content-type': shape.headers['content-type'] } : {}),
              },
        body: shape.body,
      });
    });
  }
}
