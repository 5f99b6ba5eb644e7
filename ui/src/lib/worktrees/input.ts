import type { WorktreeInput } from "../../bindings";

/** "In a new worktree" on the new-run form. */
export interface WorktreeForm {
  enabled: boolean;
  /** Empty: the backend names it from the run id. */
  name: string;
  /** Empty: HEAD. */
  base: string;
  carryChanges: boolean;
}

export function defaultWorktreeForm(): WorktreeForm {
  return { enabled: false, name: "", base: "", carryChanges: false };
}

/** The branch the run works on, as the form's hint names it. */
export function branchFor(name: string): string {
  return `bearagent/${name.trim() || "NAME"}`;
}

/** Why a worktree name is refused (the backend's rule: it names a folder and a branch), or null. */
export function worktreeNameError(raw: string): string | null {
  const name = raw.trim();
  if (name === "") return null;
  const ok = name.length <= 64 && !/^[.-]/.test(name) && /^[A-Za-z0-9._-]+$/.test(name) && !name.includes("..") && !name.endsWith(".lock");
  return ok ? null : "Use 1 to 64 letters, digits, “.”, “_” or “-”, not starting with “.” or “-”.";
}

/** The request's `worktree`: null when the switch is off; blank fields left to the backend. */
export function worktreeInput(form: WorktreeForm): WorktreeInput | null {
  if (!form.enabled) return null;
  const blank = (s: string) => (s.trim() === "" ? null : s.trim());
  return { name: blank(form.name), base: blank(form.base), carryChanges: form.carryChanges };
}
