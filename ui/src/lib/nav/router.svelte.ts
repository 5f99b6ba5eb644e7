/** The screens of the app; the URL hash names the current one so a reload keeps it. */
export type Route = { name: "home" } | { name: "run"; runId: string } | { name: "settings" };

export function parseHash(hash: string): Route {
  const path = hash.replace(/^#\/?/, "");
  const [head, ...rest] = path.split("/");
  if (head === "settings") return { name: "settings" };
  if (head === "run" && rest.length === 1 && rest[0] !== "") return { name: "run", runId: decodeURIComponent(rest[0]) };
  return { name: "home" };
}

export function hrefFor(route: Route): string {
  switch (route.name) {
    case "home":
      return "#/";
    case "settings":
      return "#/settings";
    case "run":
      return `#/run/${encodeURIComponent(route.runId)}`;
  }
}

/** Hash routing: links are plain `href`s, `go` is for code. */
export class Router {
  route = $state<Route>({ name: "home" });
  readonly #window: Pick<Window, "location" | "addEventListener" | "removeEventListener">;

  constructor(win: Pick<Window, "location" | "addEventListener" | "removeEventListener"> = window) {
    this.#window = win;
    this.route = parseHash(win.location.hash);
  }

  start(): () => void {
    const onChange = () => (this.route = parseHash(this.#window.location.hash));
    this.#window.addEventListener("hashchange", onChange);
    return () => this.#window.removeEventListener("hashchange", onChange);
  }

  go(route: Route): void {
    const hash = hrefFor(route);
    if (this.#window.location.hash !== hash) this.#window.location.hash = hash;
    this.route = route;
  }
}
