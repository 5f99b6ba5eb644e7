import type { NotTrackedChange, NotTrackedWhy, TreeSize } from "../../bindings";
import { formatBytes } from "../runs/format";

const WHY: Record<NotTrackedWhy, string> = {
  build_output: "build output",
  dependencies: "dependencies or caches",
  over_limit: "past the safety net's limits",
};

const CHANGE: Record<NotTrackedChange, string> = { made: "made", removed: "removed", changed: "changed" };

/** What a command changed that BearAgent did not keep: a `not_tracked` entry of its event, or a Changes row. */
export interface UntrackedPath {
  path: string;
  why: NotTrackedWhy;
  change: NotTrackedChange;
  size?: TreeSize | null;
}

/** "1 200 files, 800.0 MB" ("at least …" when counting stopped at the cap). */
export function treeSizeText(size: TreeSize): string {
  const files = `${size.files.toLocaleString("en-US").replaceAll(",", " ")} ${size.files === 1 ? "file" : "files"}`;
  return `${size.at_least ? "at least " : ""}${files}, ${formatBytes(size.bytes)}`;
}

/** "target/ made (build output, 1 200 files, 800.0 MB)". */
export function untrackedText(u: UntrackedPath): string {
  const detail = u.size ? `${WHY[u.why]}, ${treeSizeText(u.size)}` : WHY[u.why];
  return `${u.path} ${CHANGE[u.change]} (${detail})`;
}
