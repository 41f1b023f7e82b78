// How many root fields an operation runs, through its fragments: each is the REST call it stands
// for, and counts as one request against the rate limits (decision 41), so aliases cannot put a
// thousand mutations in one request's quota. Fields are counted by response key (alias or name),
// as execution merges the fields of one key into one call; a field, fragment or spread that
// @skip or @include leaves out is not run, so it is not counted.
import {
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type FragmentSpreadNode,
  type InlineFragmentNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/** Coerced variable values, as execution sees them. */
type Variables = Record<string, unknown>;

/** Whether execution runs this selection, by the rules of @skip and @include. */
function included(node: FieldNode | FragmentSpreadNode | InlineFragmentNode, variables: Variables): boolean {
  if (!node.directives?.length) return true;
  if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
}

export function rootFieldCount(document: DocumentNode, operation: OperationDefinitionNode, variables: Variables): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const keys = new Set<string>();
  // Each fragment is looked into once: spread again, it adds no key; spread into itself, it cannot loop.
  const seen = new Set<string>();
  const collect = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (!included(selection, variables)) continue;
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
