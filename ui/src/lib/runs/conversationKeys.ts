// Keys of the conversation view: j / k move between tool cards, Enter,
// Space or o open and close the focused card, a / d answer its approval,
// n jumps to the next card that waits or failed. Typing is never taken.
import type { ConversationItem } from "./conversation";

export type CardKeyAction = "next" | "previous" | "toggle" | "approve" | "deny" | "attention";

export interface KeyLike {
  key: string;
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

/** Where the key was pressed: in a text field, or on a control that answers Enter and Space itself. */
export interface KeyTarget {
  typing: boolean;
  control: boolean;
}

export function keyTargetOf(target: EventTarget | null): KeyTarget {
  const el = target instanceof Element ? target : null;
  return {
    typing: el?.closest("input, textarea, select, [contenteditable='true']") != null,
    control: el?.closest("button, a, summary") != null,
  };
}

/** The action a key asks for; null for keys the view leaves alone. */
export function cardKeyAction(event: KeyLike, target: KeyTarget): CardKeyAction | null {
  if (target.typing || event.ctrlKey || event.metaKey || event.altKey) return null;
  // Shift+A is the approval's own "always for this run".
  if (event.shiftKey) return null;
  switch (event.key) {
    case "j":
      return "next";
    case "k":
      return "previous";
    case "n":
      return "attention";
    case "o":
      return "toggle";
    case "Enter":
    case " ":
      return target.control ? null : "toggle";
    case "a":
      return "approve";
    case "d":
      return "deny";
    default:
      return null;
  }
}

/** The next (`step` 1) or previous (-1) tool card from `from` (-1: none focused yet); null at the end. */
export function stepCard(items: readonly ConversationItem[], from: number, step: 1 | -1): number | null {
  const start = from < 0 ? (step === 1 ? 0 : items.length - 1) : from + step;
  for (let i = start; i >= 0 && i < items.length; i += step) if (items[i].kind === "tool") return i;
  return null;
}

/** The next card after `from` that `needsYou` (waits or failed), wrapping around; null when none. */
export function nextAttention(items: readonly ConversationItem[], from: number, needsYou: (index: number) => boolean): number | null {
  const n = items.length;
  for (let k = 1; k <= n; k++) {
    const i = (((from + k) % n) + n) % n;
    if (items[i].kind === "tool" && needsYou(i)) return i;
  }
  return null;
}
