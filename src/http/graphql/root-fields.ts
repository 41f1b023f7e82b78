// How many root fields an operation runs, through its fragments: each is the REST call it stands
// for, and counts as one request against the rate limits (decision 41), so aliases cannot put a
// thousand mutations in one request's quota. Fields are counted by response key (alias or name),
// as execution merges the fields of one key into one call.
import { Kind, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

export function rootFieldCount(document: DocumentNode, operation: OperationDefinitionNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const keys = new Set<string>();
  // Each fragment is looked into once: spread again, it adds no key; spread into itself, it cannot loop.
  const seen = new Set<string>();
  const collect = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!selection.name.value.startsWith('__')) keys.add(selection.alias?.value ?? selection.name.value);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.selectionSet);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (fragment && !seen.has(fragment.name.value)) {
          seen.add(fragment.name.value);
          collect(fragment.selectionSet);
        }
      }
    }
  };
  collect(operation.selectionSet);
  return keys.size;
}
