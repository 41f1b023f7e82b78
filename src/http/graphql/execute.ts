// One GraphQL request, from its text to the JSON answer: parse, pick the operation, refuse
// operations Gantry does not offer, validate, check the key may run it, count its root fields
// against the rate limits, execute. Every failure is an `errors` entry; nothing here throws for a
// client's mistake.
import { execute, getOperationAST, getVariableValues, GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { ApiKeyRecord } from '../../store/store.js';
import type { Logger } from '../../domain/logger.js';
import { ApiError } from '../problem.js';
import { authorise } from '../auth.js';
import type { GraphQLContext } from './context.js';
import { apiErrorJson, executionErrorJson, requestErrorJson, type GraphQLErrorJson } from './errors.js';
import { notOfferedFields } from './not-offered.js';
import { rootFieldCount } from './root-fields.js';
import { nulValues } from './nul-values.js';

export interface GraphQLRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

export interface GraphQLResponse {
  errors?: GraphQLErrorJson[];
  /** null when the operation did not run (hosted practice, which the clients are used to). */
  data: unknown;
}

const refused = (errors: GraphQLErrorJson[]): GraphQLResponse => ({ errors, data: null });

function parsed(query: string): DocumentNode | GraphQLResponse {
  try {
    return parse(query);
  } catch (error) {
    if (error instanceof GraphQLError) return refused([requestErrorJson(error, 'GRAPHQL_PARSE_FAILED')]);
    throw error;
  }
}

export async function runGraphQL(
  schema: GraphQLSchema,
  request: GraphQLRequest,
  key: ApiKeyRecord,
  context: GraphQLContext,
  log: Logger,
  /** Counts the operation's root fields as requests; throws the ApiError of a refusal. */
  countRequests: (requests: number) => Promise<void>,
): Promise<GraphQLResponse> {
  const document = parsed(request.query);
  if (!('kind' in document)) return document;
  const operationName = request.operationName ?? undefined;
  const operation = getOperationAST(document, operationName);
  if (!operation) {
    const message =
      operationName === undefined
        ? 'the document must hold exactly one operation, or operationName must pick one'
        : `the document has no operation named '${operationName}'`;
    return refused([{ message, extensions: { code: 'BAD_REQUEST' } }]);
  }
  const notOffered = notOfferedFields(operation);
  if (notOffered.length > 0) return refused(notOffered);
  const invalid = validate(schema, document);
  if (invalid.length > 0) return refused(invalid.map((error) => requestErrorJson(error, 'GRAPHQL_VALIDATION_FAILED')));
  const withNul = nulValues(document, request.variables);
  if (withNul.length > 0) {
    return refused([{ message: 'text values must not contain a NUL character', extensions: { code: 'BAD_USER_INPUT', errors: withNul } }]);
  }
  try {
    // The same rules as REST: a query reads like GET, a mutation writes like POST.
    authorise(key, operation.operation === 'query' ? 'GET' : 'POST', undefined, 'bearer');
    // Variables that do not fit their definitions fail execution before any field runs: the
    // operation is then the one request it was counted as when it arrived.
    const variables = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {});
    await countRequests(variables.coerced ? rootFieldCount(document, operation, variables.coerced) : 1);
  } catch (error) {
    if (error instanceof ApiError) return refused([apiErrorJson(error)]);
    throw error;
  }
  const result = await execute({
    schema,
    document,
    operationName,
    variableValues: request.variables ?? undefined,
    contextValue: context,
  });
  return {
    ...(result.errors ? { errors: result.errors.map((error) => executionErrorJson(error, log)) } : {}),
    data: result.data ?? null,
  };
}
