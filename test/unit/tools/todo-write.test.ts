import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { todoWriteTool } from '../../../source/tools/todo-write.js'
import { createTestEnv, run, runError, type TestEnv } from './helpers.js'

let env: TestEnv
beforeEach(async () => {
  env = await createTestEnv()
})
afterEach(async () => {
  await env.cleanup()
})

const item = (content: string, status: string, activeForm = `Doing ${content}`) => ({
  content,
  status,
  activeForm,
})

describe('TodoWrite', () => {
  it('replaces the list, renders it for the model and hands the UI the todos', async () => {
    const todos = [
      item('Write the parser', 'completed'),
      item('  Run the tests ', 'in_progress', 'Running the tests'),
      item('Update the docs', 'pending'),
    ]
    const result = await run(todoWriteTool, { todos }, env.ctx)
    expect(result.forModel).toBe(
      'Todo list updated (1/3 completed):\n☑ Write the parser\n◐ Run the tests\n☐ Update the docs\n' +
        'Keep working on the item in progress and mark it completed as soon as it is done.',
    )
    expect(result.display).toEqual({
      kind: 'todos',
      todos: [
        { content: 'Write the parser', status: 'completed', activeForm: 'Doing Write the parser' },
        { content: 'Run the tests', status: 'in_progress', activeForm: 'Running the tests' },
        { content: 'Update the docs', status: 'pending', activeForm: 'Doing Update the docs' },
      ],
    })
    expect(todoWriteTool.summarize(todoWriteTool.schema.parse({ todos }))).toBe(
      'TodoWrite 3 items (1 in progress)',
    )
  })

  it('nudges when nothing is in progress, and accepts an empty list', async () => {
    const result = await run(todoWriteTool, { todos: [item('A', 'pending')] }, env.ctx)
    expect(result.forModel).toContain('No item is in progress')
    const cleared = await run(todoWriteTool, { todos: [] }, env.ctx)
    expect(cleared.forModel).toBe('The todo list is now empty.')
    expect(cleared.display).toEqual({ kind: 'todos', todos: [] })
  })

  it('rejects two items in progress and names them', async () => {
    const error = await runError(
      todoWriteTool,
      { todos: [item('A', 'in_progress'), item('B', 'pending'), item('C', 'in_progress')] },
      env.ctx,
    )
    expect(error.category).toBe('validation')
    expect(error.message).toContain('2 items are in_progress (#1 "A", #3 "C"); at most one may be')
  })

  it('rejects empty (whitespace-only) content and activeForm', async () => {
    const error = await runError(
      todoWriteTool,
      { todos: [item('A', 'pending'), item('   ', 'pending'), item('C', 'pending', '')] },
      env.ctx,
    )
    expect(error.category).toBe('validation')
    expect(error.message).toContain('empty content in item #2')
    expect(error.message).toContain('empty activeForm in item #3 "C"')
  })

  it('rejects an unknown status in the schema', () => {
    expect(todoWriteTool.schema.safeParse({ todos: [item('A', 'done')] }).success).toBe(false)
  })
})
