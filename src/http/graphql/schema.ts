// The executable schema: the SDL in schema.graphql with the root resolvers attached. Every root
// field must have a resolver and every resolver a field, checked when the app is built, so the
// file and the code cannot drift apart.
import { readFileSync } from 'node:fs';
import { buildSchema, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { shippedFile } from '../../paths.js';
import type { GraphQLContext, RootResolver, RootResolvers } from './context.js';

export const SCHEMA_FILE = shippedFile('http', 'graphql', 'schema.graphql');

function attach(type: GraphQLObjectType | null | undefined, resolvers: Record<string, RootResolver>, typeName: string): void {
  if (!type) throw new Error(`schema.graphql has no ${typeName} type`);
  const fields = type.getFields();
  for (const name of Object.keys(fields)) {
    if (!resolvers[name]) throw new Error(`${typeName}.${name} in schema.graphql has no resolver`);
  }
  for (const [name, resolve] of Object.entries(resolvers)) {
    const field = fields[name];
    if (!field) throw new Error(`the resolver ${typeName}.${name} names no field of schema.graphql`);
    field.resolve = (_source, args, context) => resolve(args as never, context as GraphQLContext);
  }
}

export function executableSchema(resolvers: RootResolvers, sdl = readFileSync(SCHEMA_FILE, 'utf8')): GraphQLSchema {
  const schema = buildSchema(sdl);
  attach(schema.getQueryType(), resolvers.Query, 'Query');
  attach(schema.getMutationType(), resolvers.Mutation, 'Mutation');
  return schema;
}
