import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resolvePaths } from '../../../source/config/app-paths.js'
import type { ProjectTrust, TrustStatus } from '../../../source/config/project-trust.js'
import { loadSessionSkills, type SkillChange } from '../../../source/app/session/skills.js'
import { boundaryReaders } from '../../../source/app/session/instruction-readers.js'

let root: string
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-session-skills-')))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const readers = () =>
  boundaryReaders({
    workspace: join(root, 'ws'),
    home: join(root, 'home'),
    additionalDirs: [],
    appDirs: [join(root, 'home/.config/agent-tui')],
    config: { rules: { allow: [], ask: [], deny: [] } },
  })

async function skill(dir: string, name: string, description: string) {
  await mkdir(join(root, dir, name), { recursive: true })
  await writeFile(
    join(root, dir, name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${description}\n---\nBody of ${name}\n`,
  )
}

function folderTrust(trusted: boolean) {
  let status: TrustStatus = { trusted, source: 'none' }
  const listeners = new Set<(s: TrustStatus) => void>()
  return {
    trust: {
      mayLoad: () => status.trusted,
      subscribe(listener: (s: TrustStatus) => void) {
        listeners.add(listener)
        return () => listeners.delete(listener)
      },
    } as unknown as ProjectTrust,
    answer(next: boolean) {
      status = { trusted: next, source: 'session' }
      for (const listener of listeners) listener(status)
    },
  }
}

describe('loadSessionSkills', () => {
  it("offers the user's skills at start; a project's arrive with trust and are announced, never added to the offer", async () => {
    await skill('home/.config/agent-tui/skills', 'pdf', 'PDF files')
    await skill('ws/.agent-tui/skills', 'release', 'Cut a release')
    const folder = folderTrust(false)
    const skills = await loadSessionSkills({
      paths: resolvePaths({ HOME: join(root, 'home') }),
      workspace: join(root, 'ws'),
      home: join(root, 'home'),
      read: readers(),
      trust: folder.trust,
    })
    expect(skills.offered.map((s) => s.name)).toEqual(['pdf'])
    expect(skills.more).toBe(true)
    expect(skills.catalog.find('release')).toBeUndefined()
    expect(skills.dirs()).toEqual([join(root, 'home/.config/agent-tui/skills/pdf')])

    const changes: SkillChange[] = []
    skills.followTrust((change) => changes.push(change))
    folder.answer(true)
    await expect.poll(() => changes.length).toBe(1)
    expect(changes[0]).toEqual({
      added: ['release'],
      gone: [],
      announcement:
        'New skills are available; load one with the Skill tool when a task matches it:\n- release: Cut a release',
      problems: [],
    })
    expect(skills.catalog.find('release')?.dir).toBe(join(root, 'ws/.agent-tui/skills/release'))
    expect(skills.dirs()).toHaveLength(2)
    expect(skills.offered.map((s) => s.name)).toEqual(['pdf'])
    folder.answer(false)
    await expect.poll(() => changes.length).toBe(2)
    expect(changes[1]?.gone).toEqual(['release'])
    expect(skills.catalog.find('release')).toBeUndefined()
  })

  it('without skills anywhere there is nothing to offer and nothing to wait for', async () => {
    const skills = await loadSessionSkills({
      paths: resolvePaths({ HOME: join(root, 'home') }),
      workspace: join(root, 'ws'),
      home: join(root, 'home'),
      read: readers(),
      trust: folderTrust(false).trust,
    })
    expect(skills.offered).toEqual([])
    expect(skills.more).toBe(false)
  })
})
