// Operations the clients send on resources Gantry does not have. They are left out of the
// schema, and a document naming one is answered NOT_IMPLEMENTED before validation, so the error
// names the operation whatever arguments the client built for it.
import { Kind, type OperationDefinitionNode } from 'graphql';
import type { GraphQLErrorJson } from './errors.js';

const POD_OPERATIONS = new Set(['podRentInterruptable', 'podBidResume']);

export function notOfferedFields(operation: OperationDefinitionNode): GraphQLErrorJson[] {
  return operation.selectionSet.selections.flatMap((selection): GraphQLErrorJson[] => {
    if (selection.kind !== Kind.FIELD || !POD_OPERATIONS.has(selection.name.value)) return [];
    const name = selection.name.value;
    const location = selection.loc ? [{ line: selection.loc.startToken.line, column: selection.loc.startToken.column }] : undefined;
    return [
      {
        message: `${name} is not offered by Gantry: it has no spot (interruptible) pods. Create an on-demand pod with podFindAndDeployOnDemand, or REST v2 POST /v2/pods`,
        ...(location ? { locations: location } : {}),
        path: [selection.alias?.value ?? name],
        extensions: { code: 'NOT_IMPLEMENTED' },
      },
    ];
  });
}
