import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type AgentChange, openAgentRegistry } from '../../../../source/agent/subagents/registry.js'
import { waitFor } from '../../tasks/helpers.js'
import { testReader } from '../../../support/instruction-reader.ts'

let root = ''
const user = () => join(root, 'user')
const project = () => join(root, 'project')
const agent = (description: string) => `---\ndescription: ${description}\n---\nBody.\n`

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'registry-'))
  await mkdir(user())
  await mkdir(project())
  await writeFile(join(user(), 'shared.md'), agent('from the user'))
  await writeFile(join(user(), 'mine.md'), agent('only mine'))
  await writeFile(join(project(), 'shared.md'), agent('from the project'))
  await writeFile(join(project(), 'broken.md'), '---\nname: broken\n---\nBody.\n')
})
afterEach(() => rm(root, { recursive: true, force: true }))

function fakeTrust(initial: boolean) {
  const listeners = new Set<() => void>()
  const trust = {
    trusted: initial,
    mayLoad: () => trust.trusted,
    subscribe(listener: () => void) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    set(value: boolean) {
      trust.trusted = value
      for (const l of listeners) l()
    },
  }
  return trust
}

describe('the agent registry', () => {
  it("has the built-in agents and the user's; the project's wait for trust and then win on a clash", async () => {
    const trust = fakeTrust(false)
    const registry = await openAgentRegistry({
      userDir: user(),
      projectDir: project(),
      label: (p) => p.slice(root.length + 1),
      tools: ['Read'],
      read: { user: testReader(), project: testReader() },
      trust,
    })
    expect(registry.list().map((a) => `${a.name}:${a.source}`)).toEqual([
      'build:built-in',
      'general-purpose:built-in',
      'explore:built-in',
      'plan:built-in',
      'mine:user',
      'shared:user',
    ])
    expect(registry.problems()).toEqual([])
    const changes: AgentChange[] = []
    registry.onChange((c) => changes.push(c))
    trust.set(true)
    await waitFor(() => changes.length === 1, 'the project agents to load')
    expect(registry.get('shared')?.description).toBe('from the project')
    expect(changes[0]?.added.map((a) => a.name)).toEqual(['shared'])
    expect(changes[0]?.removed.map((a) => `${a.name}:${a.source}`)).toEqual(['shared:user'])
    expect(registry.problems()).toEqual([
      expect.objectContaining({ file: 'project/broken.md', field: 'description', skipped: true }),
    ])
    trust.set(false)
    expect(registry.get('shared')?.source).toBe('user')
    expect(changes).toHaveLength(2)
    registry.dispose()
  })

  it('never loads project agents without a trust answer', async () => {
    const registry = await openAgentRegistry({
      userDir: user(),
      projectDir: project(),
      label: (p) => p,
      tools: [],
      read: { user: testReader(), project: testReader() },
    })
    expect(registry.get('shared')?.source).toBe('user')
  })
})
