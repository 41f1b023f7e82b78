// REST v2 network volumes: thin routes over NetworkVolumeService.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/services.js';
import type { NetworkVolumeRecord } from '../../store/store.js';
import type { VolumeUsage } from '../../runtime/volumes/volume-directories.js';
import { problemResponses } from '../schemas/common.js';
import {
  CreateNetworkVolumeBody,
  ListNetworkVolumesResponse,
  NetworkVolumeIdParams,
  NetworkVolumeResponse,
  UpdateNetworkVolumeBody,
} from '../schemas/network-volumes.js';

const tags = ['Network Volumes'];
const GB = 1024 ** 3;

function volumeView(volume: NetworkVolumeRecord, usage?: VolumeUsage) {
  const { spec } = volume;
  return {
    id: volume.id,
    name: spec.name,
    size: spec.size,
    dataCenter: spec.dataCenterId,
    type: spec.type,
    ...(usage ? { usage: { usedBytes: usage.usedBytes, sizeBytes: spec.size * GB, complete: usage.complete } } : {}),
  };
}

export function networkVolumeRoutes({ networkVolumes }: Services): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const account = (apiKey: { accountId: string } | undefined) => apiKey!.accountId;

    app.get(
      '/v2/network-volumes',
      {
        schema: {
          tags,
          operationId: 'listNetworkVolumes',
          summary: "The caller's network volumes",
          response: { 200: ListNetworkVolumesResponse, ...problemResponses() },
        },
      },
      async (request) => ({ networkVolumes: (await networkVolumes.list(account(request.apiKey))).map((v) => volumeView(v)) }),
    );

    app.post(
      '/v2/network-volumes',
      {
        schema: {
          tags,
          operationId: 'createNetworkVolume',
          summary: 'Create a network volume in a data center that offers them',
          description:
            'A data center offers volumes when this deployment runs workers there (its catalog entry lists networkVolumeTypes); another answers 400.',
          body: CreateNetworkVolumeBody,
          response: { 201: NetworkVolumeResponse, ...problemResponses(400, 422) },
        },
      },
      async (request, reply) => {
        const created = await networkVolumes.create(account(request.apiKey), request.body);
        return reply.code(201).send(volumeView(created));
      },
    );

    app.get(
      '/v2/network-volumes/:id',
      {
        schema: {
          tags,
          operationId: 'getNetworkVolume',
          summary: "One of the caller's network volumes, with what its files take",
          params: NetworkVolumeIdParams,
          response: { 200: NetworkVolumeResponse, ...problemResponses(404) },
        },
      },
      async (request) => {
        const volume = await networkVolumes.get(account(request.apiKey), request.params.id);
        return volumeView(volume, await networkVolumes.usage(volume));
      },
    );

    app.patch(
      '/v2/network-volumes/:id',
      {
        schema: {
          tags,
          operationId: 'updateNetworkVolume',
          summary: 'Rename or grow a network volume; a smaller size answers 400',
          params: NetworkVolumeIdParams,
          body: UpdateNetworkVolumeBody,
          response: { 200: NetworkVolumeResponse, ...problemResponses(400, 404, 422) },
        },
      },
      async (request) => volumeView(await networkVolumes.update(account(request.apiKey), request.params.id, request.body)),
    );

    app.delete(
      '/v2/network-volumes/:id',
      {
        schema: {
          tags,
          operationId: 'deleteNetworkVolume',
          summary: 'Delete a network volume and its files; one an endpoint uses answers 409',
          params: NetworkVolumeIdParams,
          response: { 204: Type.Null(), ...problemResponses(404, 409) },
        },
      },
      async (request, reply) => {
        await networkVolumes.delete(account(request.apiKey), request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
