// What every resolver receives: the caller's account and the services REST v2 uses too.
import type { Services } from '../../services/services.js';

export interface GraphQLContext {
  accountId: string;
  services: Pick<Services, 'catalog' | 'endpoints' | 'templates' | 'registryAuths' | 'sshKeys' | 'pods' | 'cluster' | 'networkVolumes'>;
}

/**
 * A root field's resolver. Its arguments are typed by hand from schema.graphql; GraphQL has
 * validated them against the schema before the resolver runs.
 */
export type RootResolver = (args: never, context: GraphQLContext) => unknown;

export interface RootResolvers {
  Query: Record<string, RootResolver>;
  Mutation: Record<string, RootResolver>;
}

/** GraphQL's `[{key, value}]` environment, as the SDK sends and reads it. */
export interface EnvironmentVariable {
  key: string;
  value: string;
}

export const envList = (env: Record<string, string>): EnvironmentVariable[] => Object.entries(env).map(([key, value]) => ({ key, value }));
