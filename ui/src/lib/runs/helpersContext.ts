import { getContext, setContext } from "svelte";
import type { HelperTree } from "./helpers.svelte";

// The open run's helpers, for the `task` cards deep in its conversation.
const KEY = Symbol("helper-tree");

export function provideHelperTree(tree: HelperTree): void {
  setContext(KEY, tree);
}

/** The open run's helpers; null outside a run view. */
export function helperTree(): HelperTree | null {
  return getContext<HelperTree | undefined>(KEY) ?? null;
}
