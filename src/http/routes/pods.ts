// REST v2 pods: thin routes over PodService. Without the Docker provider every route answers 501.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/services.js';
import { problemResponses } from '../schemas/common.js';
import { LogQuery } from '../schemas/workers.js';
import { CreatePodBody, ListPodsQuery, ListPodsResponse, PodActionBody, PodIdParams, PodResponse, UpdatePodBody } from '../schemas/pods.js';
import { podView } from '../views/pod-view.js';
import { streamLogs } from '../log-stream.js';
import type { PodRecord } from '../../store/pod-store.js';

const tags = ['Pods'];
/** Every line the engine keeps of a pod; the cursor picks from them. */
const LOG_LINES_KEPT = 100_000;

export function podRoutes({ pods, config, cluster }: Services): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const account = (apiKey: { accountId: string } | undefined) => apiKey!.accountId;
    const addresses = () => ({ sshHost: new URL(config.publicUrl).hostname, publicUrl: config.publicUrl });
    const view = (pod: PodRecord) => podView(pod, pods.costPerHour(pod), pods.engine(), addresses(), cluster.now());

    app.get(
      '/v2/pods',
      {
        schema: {
          tags,
          operationId: 'listPods',
          summary: "List the caller's pods",
          querystring: ListPodsQuery,
          response: { 200: ListPodsResponse, ...problemResponses(422, 501) },
        },
      },
      async (request) => ({ pods: await Promise.all((await pods.list(account(request.apiKey))).map(view)) }),
    );

    app.post(
      '/v2/pods',
      {
        schema: {
          tags,
          operationId: 'createPod',
          summary: 'Create a pod: placed at once (400 when nothing fits), started in the background',
          body: CreatePodBody,
          response: { 201: PodResponse, ...problemResponses(400, 404, 422, 501) },
        },
      },
      async (request, reply) => reply.code(201).send(await view(await pods.create(account(request.apiKey), request.body))),
    );

    app.get(
      '/v2/pods/:id',
      {
        schema: {
          tags,
          operationId: 'getPod',
          summary: 'Get a pod',
          params: PodIdParams,
          response: { 200: PodResponse, ...problemResponses(404, 501) },
        },
      },
      async (request) => view(await pods.get(account(request.apiKey), request.params.id)),
    );

    app.patch(
      '/v2/pods/:id',
      {
        schema: {
          tags,
          operationId: 'updatePod',
          summary: 'Change the fields sent; container fields of a running pod apply at its next start (see pendingRestart)',
          params: PodIdParams,
          body: UpdatePodBody,
          response: { 200: PodResponse, ...problemResponses(400, 404, 409, 422, 501) },
        },
      },
      async (request) => view(await pods.update(account(request.apiKey), request.params.id, request.body)),
    );

    app.delete(
      '/v2/pods/:id',
      {
        schema: {
          tags,
          operationId: 'deletePod',
          summary: 'Terminate a pod: its container and its persistent volume go',
          params: PodIdParams,
          response: { 204: Type.Null(), ...problemResponses(404, 409, 501) },
        },
      },
      async (request, reply) => {
        await pods.act(account(request.apiKey), request.params.id, 'terminate');
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/v2/pods/:id/action',
      {
        schema: {
          tags,
          operationId: 'podAction',
          summary: 'Start, stop, restart or terminate a pod; 409 when its state does not allow it',
          description: 'Answers the pod, except terminate: 204 with no body, as DELETE',
          params: PodIdParams,
          body: PodActionBody,
          response: { 200: PodResponse, 204: Type.Null(), ...problemResponses(400, 404, 409, 422, 501) },
        },
      },
      async (request, reply) => {
        const pod = await pods.act(account(request.apiKey), request.params.id, request.body.action);
        return request.body.action === 'terminate' ? reply.code(204).send(null) : view(pod);
      },
    );

    app.get(
      '/v2/pods/:id/logs',
      {
        schema: {
          tags,
          operationId: 'getPodLogs',
          summary: "The pod's log lines as server-sent events: the last `tail`, then live ones",
          params: PodIdParams,
          querystring: LogQuery,
          response: { 200: Type.String({ description: 'text/event-stream of {source, line, ts}' }), ...problemResponses(404, 422, 501) },
        },
      },
      async (request, reply) => {
        const pod = await pods.get(account(request.apiKey), request.params.id);
        const engine = pods.engine();
        streamLogs(request, reply, request.query, {
          lines: () => engine.logs(pod.id, LOG_LINES_KEPT),
          follow: (listener) => engine.followLogs(pod.id, listener),
        });
      },
    );
  };
}
