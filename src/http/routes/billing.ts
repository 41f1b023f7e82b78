// REST v2 Billing: thin routes over BillingService, one per resource family.
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.js';
import { problemResponses } from '../schemas/common.js';
import {
  BillingQuerystring,
  ClusterBillingQuerystring,
  ListBillingResponse,
  ListClusterBillingResponse,
  ListEndpointBillingResponse,
  ListNetworkVolumeBillingResponse,
  ListPodBillingResponse,
  ListServerlessBillingResponse,
  NetworkVolumeBillingQuerystring,
  PodBillingQuerystring,
  ServerlessBillingQuerystring,
} from '../schemas/billing.js';

const tags = ['Billing'];
const description =
  'Metered usage priced by the deployment price table, in UTC time buckets. Usage is recorded by the leader every --metering-interval-ms, so the current bucket trails by up to that much.';

export function billingRoutes({ billing }: Services): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const account = (apiKey: { accountId: string } | undefined) => apiKey!.accountId;
    const schema = <Q, R>(operationId: string, summary: string, querystring: Q, response: R) => ({
      schema: { tags, operationId, summary, description, querystring, response: { 200: response, ...problemResponses(400, 422) } },
    });

    app.get(
      '/v2/billing',
      schema('listBilling', 'Spend across every resource family, per bucket', BillingQuerystring, ListBillingResponse),
      (request) => billing.aggregate(account(request.apiKey), request.query),
    );

    app.get(
      '/v2/billing/pods',
      schema('listPodBilling', 'Pod spend, per pod and bucket', PodBillingQuerystring, ListPodBillingResponse),
      (request) => {
        const { podId, ...window } = request.query;
        return billing.pods(account(request.apiKey), { ...window, ...(podId !== undefined ? { id: podId } : {}) });
      },
    );

    app.get(
      '/v2/billing/serverless',
      schema(
        'listServerlessBilling',
        'Serverless spend, per endpoint and bucket',
        ServerlessBillingQuerystring,
        ListServerlessBillingResponse,
      ),
      (request) => {
        const { serverlessId, ...window } = request.query;
        return billing.serverless(account(request.apiKey), { ...window, ...(serverlessId !== undefined ? { id: serverlessId } : {}) });
      },
    );

    app.get(
      '/v2/billing/endpoints',
      schema(
        'listEndpointBilling',
        'Hosted public endpoint spend per bucket: none are offered, so 0',
        BillingQuerystring,
        ListEndpointBillingResponse,
      ),
      async (request) => billing.endpoints(request.query),
    );

    app.get(
      '/v2/billing/network-volumes',
      schema(
        'listNetworkVolumeBilling',
        'Network volume spend, per volume and bucket',
        NetworkVolumeBillingQuerystring,
        ListNetworkVolumeBillingResponse,
      ),
      (request) => {
        const { networkVolumeId, ...window } = request.query;
        return billing.networkVolumes(account(request.apiKey), {
          ...window,
          ...(networkVolumeId !== undefined ? { id: networkVolumeId } : {}),
        });
      },
    );

    app.get(
      '/v2/billing/clusters',
      schema(
        'listClusterBilling',
        'Instant Cluster spend: none are offered, so no records',
        ClusterBillingQuerystring,
        ListClusterBillingResponse,
      ),
      async (request) => {
        const { clusterId, ...window } = request.query;
        return billing.clusters({ ...window, ...(clusterId !== undefined ? { id: clusterId } : {}) });
      },
    );
  };
}
