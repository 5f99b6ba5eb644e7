/**
 * A view whose code loads when it is first shown, once: the runs list paints
 * without parsing the run and settings views (cold start, issue 27). Once
 * loaded, the view itself is returned rather than a promise, so an
 * `{#await}` shows it at once, as a static import would. A failed load is
 * not remembered: showing the view again retries it.
 */
export function lazyView<T>(load: () => Promise<{ default: T }>): () => T | Promise<T> {
  let loaded: { view: T } | null = null;
  let pending: Promise<T> | null = null;
  return () => {
    if (loaded) return loaded.view;
    return (pending ??= load().then(
      (module) => {
        loaded = { view: module.default };
        return module.default;
      },
      (error: unknown) => {
        pending = null;
        throw error;
      },
    ));
  };
}
