/**
 * `n` / `p` in a diff: focus the next / previous hunk's Revert button
 * inside `section` (Enter then reverts it); `k` on a hunk's button keeps
 * that hunk. Typing in a field is left alone.
 */
export function moveBetweenHunks(section: HTMLElement | null, event: KeyboardEvent): void {
  if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
  if (event.key === "k" && !event.ctrlKey && !event.metaKey && !event.altKey) return keepFocusedHunk(section, event);
  if (event.key !== "n" && event.key !== "p") return;
  const buttons = [...(section?.querySelectorAll<HTMLButtonElement>('[data-testid="hunk-revert"]') ?? [])];
  if (buttons.length === 0) return;
  const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
  const next = event.key === "n" ? Math.min(at + 1, buttons.length - 1) : Math.max(at - 1, 0);
  buttons[at === -1 ? 0 : next].focus();
  event.preventDefault();
}

/** `k` on a hunk's Revert (or Keep) button: that hunk's Keep. */
function keepFocusedHunk(section: HTMLElement | null, event: KeyboardEvent): void {
  const focused = document.activeElement;
  if (!(focused instanceof HTMLButtonElement) || !section?.contains(focused)) return;
  const hunk = focused.dataset.hunk;
  if (!hunk) return;
  section.querySelector<HTMLButtonElement>(`[data-testid="hunk-keep"][data-hunk="${hunk}"]`)?.click();
  // The card list's k (previous card) is not this key here.
  event.preventDefault();
  event.stopPropagation();
}
