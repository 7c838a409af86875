/** One item of the host application's own to-do list (nothing to do with covgate). */
export interface Todo {
  id: number;
  title: string;
  done: boolean;
}

/** The host application's own state: an in-memory to-do list. */
export interface TodoList {
  all(): Todo[];
  add(title: string): Todo;
}

/** Longest accepted title, in UTF-16 code units. */
export const MAX_TITLE_LENGTH = 200;

/** Creates an empty to-do list whose ids count from 1. */
export function createTodoList(): TodoList {
  const todos: Todo[] = [];
  return {
    all: () => todos.map((todo) => ({ ...todo })),
    add(title) {
      const todo = { id: todos.length + 1, title, done: false };
      todos.push(todo);
      return { ...todo };
    },
  };
}

/**
 * The title of a new to-do from a parsed JSON body: a string with visible characters, at
 * most {@link MAX_TITLE_LENGTH} long, trimmed; `null` for anything else.
 */
export function todoTitleOf(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const title = (body as { title?: unknown }).title;
  if (typeof title !== 'string') return null;
  const trimmed = title.trim();
  return trimmed === '' || trimmed.length > MAX_TITLE_LENGTH ? null : trimmed;
}
