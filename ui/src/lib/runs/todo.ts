// The model's todo list (`todo_updated`, the projection's `todo`): how each
// step is marked and how far the list is.
import type { TodoItem, TodoStatus } from "../../bindings";

export const TODO_MARKS: Record<TodoStatus, string> = { completed: "✓", in_progress: "▸", pending: "○" };

export const TODO_STATUS_LABELS: Record<TodoStatus, string> = { completed: "done", in_progress: "in progress", pending: "pending" };

/** Steps finished and in all. */
export function todoProgress(items: readonly TodoItem[]): { done: number; total: number } {
  return { done: items.filter((item) => item.status === "completed").length, total: items.length };
}

/** "1 of 3 done". */
export function todoSummary(items: readonly TodoItem[]): string {
  const { done, total } = todoProgress(items);
  return `${done} of ${total} done`;
}

/** The conversation's quiet line for an update: "Plan updated: 1 of 3 done" (or that it was cleared). */
export function todoNote(items: readonly TodoItem[]): string {
  return items.length === 0 ? "Plan cleared" : `Plan updated: ${todoSummary(items)}`;
}

/** The runs list's compact "1/3" (null without a list). */
export function todoShort(items: readonly TodoItem[] | null | undefined): string | null {
  if (!items || items.length === 0) return null;
  const { done, total } = todoProgress(items);
  return `${done}/${total}`;
}
