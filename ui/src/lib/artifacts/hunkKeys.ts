/**
 * `n` / `p` in a diff: focus the next / previous hunk's Revert button
 * inside `section` (Enter then reverts it). Typing in a field is left alone.
 */
export function moveBetweenHunks(section: HTMLElement | null, event: KeyboardEvent): void {
  if (event.key !== "n" && event.key !== "p") return;
  if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
  const buttons = [...(section?.querySelectorAll<HTMLButtonElement>('[data-testid="hunk-revert"]') ?? [])];
  if (buttons.length === 0) return;
  const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
  const next = event.key === "n" ? Math.min(at + 1, buttons.length - 1) : Math.max(at - 1, 0);
  buttons[at === -1 ? 0 : next].focus();
  event.preventDefault();
}
