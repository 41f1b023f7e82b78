// The hosted API's clusters (groups of pods on a private network) have no self-hosted
// counterpart: the routes exist so clients get a clear 501 instead of a 404.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../domain/errors.js';
import { problemResponses } from '../schemas/common.js';

const tags = ['Clusters'];
const SUMMARY = 'Not offered: clusters (answers 501)';

const notOffered = () => {
  throw new ApiError(501, 'clusters are not offered by Gantry: create the pods one by one with POST /v2/pods');
};

export function clusterRoutes(): FastifyPluginAsync {
  return async (app) => {
    const schema = (operationId: string, withId: boolean) => ({
      tags,
      operationId,
      summary: SUMMARY,
      response: problemResponses(501),
      ...(withId ? { params: Type.Object({ id: Type.String() }) } : {}),
    });
    app.get('/v2/clusters', { schema: schema('listClusters', false) }, notOffered);
    app.post('/v2/clusters', { schema: schema('createCluster', false) }, notOffered);
    app.get('/v2/clusters/:id', { schema: schema('getCluster', true) }, notOffered);
    app.patch('/v2/clusters/:id', { schema: schema('updateCluster', true) }, notOffered);
    app.delete('/v2/clusters/:id', { schema: schema('deleteCluster', true) }, notOffered);
    app.get('/v2/clusters/:id/pods', { schema: schema('listClusterPods', true) }, notOffered);
  };
}
