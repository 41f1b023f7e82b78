// The hosted API's ECR delegations (a cloud account allowed to pull from an AWS repository) have
// no self-hosted counterpart: the routes exist so clients get a clear 501 instead of a 404.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../domain/errors.js';
import { problemResponses } from '../schemas/common.js';

const tags = ['Registries'];

const notOffered = () => {
  throw new ApiError(
    501,
    "ECR delegations are not offered by Gantry: store a registry login with POST /v2/registries and name it in the endpoint's registry",
  );
};

export function registryDelegationRoutes(): FastifyPluginAsync {
  return async (app) => {
    const schema = (operationId: string, summary: string) => ({ tags, operationId, summary, response: problemResponses(501) });
    app.get('/v2/registries/delegations', { schema: schema('listDelegations', 'Not offered: ECR delegations (answers 501)') }, notOffered);
    app.post(
      '/v2/registries/delegations',
      { schema: schema('createDelegation', 'Not offered: ECR delegations (answers 501)') },
      notOffered,
    );
    app.delete(
      '/v2/registries/delegations/:id',
      {
        schema: { ...schema('revokeDelegation', 'Not offered: ECR delegations (answers 501)'), params: Type.Object({ id: Type.String() }) },
      },
      notOffered,
    );
  };
}
