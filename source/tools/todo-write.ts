import { z } from 'zod'
import type { Todo, TodoStatus } from '../store/domain.js'
import { defineTool, ToolError, type ToolSuccess } from './types.js'

const DESCRIPTION = `Creates and updates the todo list for the current task; the user sees it in the todo pane.
- Use it for work with 3 or more distinct steps, or when the user gives several tasks; skip it for a single trivial change.
- Every call sends the COMPLETE list and replaces the previous one.
- Each item has content (imperative: "Run the tests"), activeForm (present continuous: "Running the tests") and a status.
- Exactly one item is in_progress while you work: mark it in_progress before you start on it, and completed as soon as it is done (do not batch completions).
- Only mark an item completed when it is fully done (tests pass, no errors left); otherwise keep it in_progress and add an item for the blocker.
- Remove items that are no longer relevant.`

const STATUSES = ['pending', 'in_progress', 'completed'] as const

const todoSchema = z.strictObject({
  content: z.string().describe('What to do, in the imperative form (e.g. "Run the tests")'),
  status: z.enum(STATUSES).describe('pending, in_progress (at most one item) or completed'),
  activeForm: z
    .string()
    .describe('The same step in the present continuous form, shown while it runs (e.g. "Running the tests")'),
})

const schema = z.strictObject({
  todos: z.array(todoSchema).describe('The complete updated todo list; it replaces the previous list'),
})

export type TodoWriteArgs = z.infer<typeof schema>

const MARKS: Record<TodoStatus, string> = { pending: '☐', in_progress: '◐', completed: '☑' }

/** The list as the model and the headless output see it: one `☐/◐/☑ content` line per item. */
export function renderTodos(todos: readonly Todo[]): string {
  return todos.map((todo) => `${MARKS[todo.status]} ${todo.content}`).join('\n')
}

/** Quotes an item for error messages: `#2 "Run the tests"`. */
const itemRef = (todo: Todo, index: number): string =>
  `#${index + 1}${todo.content.trim() ? ` "${todo.content.trim()}"` : ''}`

/** Throws a ToolError naming every offending item; returns the list with content/activeForm trimmed. */
function validate(todos: readonly Todo[]): Todo[] {
  const problems: string[] = []
  const emptyContent = todos.flatMap((todo, i) => (todo.content.trim() === '' ? [`#${i + 1}`] : []))
  if (emptyContent.length > 0) problems.push(`empty content in item ${emptyContent.join(', ')}`)
  const emptyActive = todos.flatMap((todo, i) => (todo.activeForm.trim() === '' ? [itemRef(todo, i)] : []))
  if (emptyActive.length > 0) problems.push(`empty activeForm in item ${emptyActive.join(', ')}`)
  const inProgress = todos.flatMap((todo, i) => (todo.status === 'in_progress' ? [itemRef(todo, i)] : []))
  if (inProgress.length > 1) {
    problems.push(`${inProgress.length} items are in_progress (${inProgress.join(', ')}); at most one may be`)
  }
  if (problems.length > 0) {
    throw new ToolError('validation', `The todo list was not updated: ${problems.join('; ')}.`, {
      hint: 'Fix the listed items and send the complete list again.',
    })
  }
  return todos.map((todo) => ({
    content: todo.content.trim(),
    status: todo.status,
    activeForm: todo.activeForm.trim(),
  }))
}

function nudge(todos: readonly Todo[]): string {
  const count = (status: TodoStatus) => todos.filter((todo) => todo.status === status).length
  if (count('completed') === todos.length) return 'All items are completed.'
  if (count('in_progress') === 0)
    return 'No item is in progress: mark the next one in_progress before you start it.'
  return 'Keep working on the item in progress and mark it completed as soon as it is done.'
}

/** The TodoWrite tool: replaces the session's todo list (the runtime stores it from `display`). */
export const todoWriteTool = defineTool<TodoWriteArgs>({
  name: 'TodoWrite',
  description: DESCRIPTION,
  schema,
  risk: 'read',
  isReadOnly: () => true,
  permissionTarget: () => ({ kind: 'none' }),
  preview: async (args) => ({ kind: 'json', text: renderTodos(args.todos) }),
  summarize(args) {
    const active = args.todos.filter((todo) => todo.status === 'in_progress').length
    const n = args.todos.length
    return `TodoWrite ${n} item${n === 1 ? '' : 's'}${active > 0 ? ` (${active} in progress)` : ''}`
  },
  async execute(args): Promise<ToolSuccess> {
    const todos = validate(args.todos)
    const display = { kind: 'todos' as const, todos }
    if (todos.length === 0) return { forModel: 'The todo list is now empty.', display }
    const done = todos.filter((todo) => todo.status === 'completed').length
    return {
      forModel: `Todo list updated (${done}/${todos.length} completed):\n${renderTodos(todos)}\n${nudge(todos)}`,
      display,
    }
  },
})
