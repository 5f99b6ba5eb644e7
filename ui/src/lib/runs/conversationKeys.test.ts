import { describe, expect, it } from "vitest";
import type { ConversationItem } from "./conversation";
import { cardKeyAction, nextAttention, stepCard } from "./conversationKeys";

const key = (k: string, mods: Partial<{ shiftKey: boolean; ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {}) => ({ key: k, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, ...mods });
const plain = { typing: false, control: false };

describe("cardKeyAction", () => {
  it("maps the conversation's keys", () => {
    expect(["j", "k", "n", "o", "Enter", " ", "a", "d", "x"].map((k) => cardKeyAction(key(k), plain))).toEqual(["next", "previous", "attention", "toggle", "toggle", "toggle", "approve", "deny", null]);
  });

  it("never takes a key while typing, with a modifier, or Enter on a button", () => {
    expect(cardKeyAction(key("j"), { typing: true, control: false })).toBeNull();
    expect(cardKeyAction(key("a", { ctrlKey: true }), plain)).toBeNull();
    expect(cardKeyAction(key("a", { shiftKey: true }), plain)).toBeNull();
    expect(cardKeyAction(key("Enter"), { typing: false, control: true })).toBeNull();
    expect(cardKeyAction(key("j"), { typing: false, control: true })).toBe("next");
  });
});

const items = ["user", "model", "tool", "note", "tool", "model", "tool"].map((kind, i) => ({ kind, key: String(i) }) as unknown as ConversationItem);

describe("card navigation", () => {
  it("steps between tool cards only", () => {
    expect(stepCard(items, -1, 1)).toBe(2);
    expect(stepCard(items, 2, 1)).toBe(4);
    expect(stepCard(items, 6, 1)).toBeNull();
    expect(stepCard(items, 4, -1)).toBe(2);
    expect(stepCard(items, -1, -1)).toBe(6);
  });

  it("finds the next card that needs the user, wrapping around", () => {
    const needs = (i: number) => i === 2;
    expect(nextAttention(items, 4, needs)).toBe(2);
    expect(nextAttention(items, 2, needs)).toBe(2);
    expect(nextAttention(items, 0, () => false)).toBeNull();
  });
});
