// How RunPod's clients call the legacy GraphQL interface, reproduced request for request:
// runpodctl puts the key in `?api_key=` and sends `{query, variables}`; the Python SDK sends
// `Authorization: Bearer` and `{query}` alone, with every value inlined in the document text by
// string formatting (runpod/api/mutations/*.py), loose whitespace and all.
import type { LightMyRequestResponse } from 'fastify';
import type { Harness } from './harness.js';

export type Client = 'sdk' | 'runpodctl';

export function graphql(
  h: Harness,
  query: string,
  options: { key?: string; client?: Client; variables?: Record<string, unknown> | null } = {},
): Promise<LightMyRequestResponse> {
  const key = options.key ?? h.adminKey;
  if ((options.client ?? 'sdk') === 'runpodctl') {
    return h.app.inject({
      method: 'POST',
      url: `/graphql?api_key=${encodeURIComponent(key)}`,
      headers: { 'content-type': 'application/json' },
      payload: { query, variables: options.variables ?? null },
    });
  }
  return h.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${key}`,
      'user-agent': 'RunPod-Python-SDK/1.7.0 (Linux) Language/Python 3.11.4',
    },
    payload: options.variables === undefined ? { query } : { query, variables: options.variables },
  });
}

/** What the SDK does with an answer: 401 is an AuthenticationError, `errors` a QueryError on errors[0].message. */
export function sdkRead(response: LightMyRequestResponse): Record<string, unknown> {
  if (response.statusCode === 401) throw new Error(`AuthenticationError: ${response.body}`);
  const body = response.json() as { data?: Record<string, unknown>; errors?: { message: string }[] };
  if ('errors' in body) throw new Error(`QueryError: ${body.errors?.[0]?.message}`);
  return body.data!;
}

/** runpod.api.mutations.templates.generate_pod_template, as the SDK formats it. */
export function sdkCreateTemplate(t: {
  name: string;
  imageName: string;
  dockerStartCmd?: string;
  containerDiskInGb?: number;
  volumeInGb?: number;
  volumeMountPath?: string;
  ports?: string;
  env?: Record<string, string>;
  isServerless?: boolean;
  registryAuthId?: string;
}): string {
  const fields = [`name: "${t.name}"`, `imageName: "${t.imageName}"`];
  fields.push(t.dockerStartCmd ? `dockerArgs: "${t.dockerStartCmd.replaceAll('"', '\\"')}"` : 'dockerArgs: ""');
  fields.push(`containerDiskInGb: ${t.containerDiskInGb ?? 10}`);
  fields.push(`volumeInGb: ${t.volumeInGb ?? 0}`);
  if (t.volumeMountPath) fields.push(`volumeMountPath: "${t.volumeMountPath}"`);
  fields.push(t.ports ? `ports: "${t.ports.replaceAll(' ', '')}"` : 'ports: ""');
  const env = Object.entries(t.env ?? {})
    .map(([key, value]) => `{ key: "${key}", value: "${value}" }`)
    .join(', ');
  fields.push(`env: [${env}]`);
  fields.push(`isServerless: ${t.isServerless ? 'true' : 'false'}`);
  fields.push(`containerRegistryAuthId : "${t.registryAuthId ?? ''}"`);
  fields.push('startSsh: true', 'isPublic: false', 'readme: ""');
  return `
    mutation {
        saveTemplate(
            input: {
                ${fields.join(', ')}
            }
        ) {
            id
            name
            imageName
            dockerArgs
            containerDiskInGb
            volumeInGb
            volumeMountPath
            ports
            env {
                key
                value
            }
            isServerless
        }
    }
    `;
}

/** runpod.api.mutations.endpoints.generate_endpoint_mutation, with the SDK's defaults. */
export function sdkCreateEndpoint(e: {
  name: string;
  templateId: string;
  gpuIds?: string;
  networkVolumeId?: string;
  locations?: string;
  idleTimeout?: number;
  scalerType?: string;
  scalerValue?: number;
  workersMin?: number;
  workersMax?: number;
  flashboot?: boolean;
  allowedCudaVersions?: string;
  gpuCount?: number;
}): string {
  const fields = [
    `name: "${e.name}"`,
    `templateId: "${e.templateId}"`,
    `gpuIds: "${e.gpuIds ?? 'AMPERE_16'}"`,
    `networkVolumeId: "${e.networkVolumeId ?? ''}"`,
    `locations: "${e.locations ?? ''}"`,
    `idleTimeout: ${e.idleTimeout ?? 5}`,
    `scalerType: "${e.scalerType ?? 'QUEUE_DELAY'}"`,
    `scalerValue: ${e.scalerValue ?? 4}`,
    `workersMin: ${e.workersMin ?? 0}`,
    `workersMax: ${e.workersMax ?? 3}`,
  ];
  if (e.flashboot) fields.push('flashBootType: FLASHBOOT');
  if (e.allowedCudaVersions) fields.push(`allowedCudaVersions: "${e.allowedCudaVersions}"`);
  fields.push(`gpuCount: ${e.gpuCount ?? 1}`);
  return `
    mutation {
        saveEndpoint(
            input: {
                ${fields.join(', ')}
            }
        ) {
            id
            name
            templateId
            gpuIds
            networkVolumeId
            locations
            idleTimeout
            scalerType
            scalerValue
            workersMin
            workersMax
            allowedCudaVersions
            gpuCount
            flashBootType
        }
    }
    `;
}

export const SDK_GET_ENDPOINTS = `
query Query {
  myself {
    endpoints {
      aiKey gpuIds id idleTimeout name networkVolumeId locations scalerType scalerValue templateId type userId version
      workersMax workersMin workersStandby gpuCount
      env { key value }
      createdAt
      networkVolume { id dataCenterId }
    }
  }
}
`;

export const SDK_GET_USER = `
query myself {
    myself {
        id
        pubKey
        networkVolumes {
            id
            name
            size
            dataCenterId
        }
    }
}
`;

/** runpod.api.mutations.user.generate_user_mutation: newlines in the keys become `\n` escapes. */
export function sdkUpdateUserSettings(pubKey: string): string {
  return `
    mutation {
        updateUserSettings(
            input: {
                pubKey: "${pubKey.replaceAll('\n', '\\n')}"
            }
        ) {
            id
            pubKey
        }
    }`;
}

const POD = `id containerDiskInGb costPerHr desiredStatus dockerArgs dockerId env gpuCount imageName lastStatusChange machineId
  memoryInGb name podType port ports uptimeSeconds vcpuCount volumeInGb volumeMountPath
  runtime { ports { ip isIpPublic privatePort publicPort type } } machine { gpuDisplayName }`;

export const SDK_GET_PODS = `query myPods { myself { pods { ${POD} } } }`;
export const SDK_GET_POD = (podId: string) => `query pod { pod(input: {podId: "${podId}"}) { ${POD} } }`;
