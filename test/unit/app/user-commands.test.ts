import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resolvePaths } from '../../../source/config/app-paths.js'
import type { ProjectTrust, TrustStatus } from '../../../source/config/project-trust.js'
import { BUILTIN_COMMANDS } from '../../../source/ui/commands/builtin-commands.js'
import { createCommandTable } from '../../../source/ui/commands/command-table.js'
import { installUserCommands } from '../../../source/app/session/load-commands.js'
import { boundaryReaders } from '../../../source/app/session/instruction-readers.js'

let root: string
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-user-commands-')))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

async function write(path: string, text: string) {
  await mkdir(dirname(join(root, path)), { recursive: true })
  await writeFile(join(root, path), text)
}

/** A folder's trust that the test answers. */
function trustOf(trusted: boolean) {
  let status: TrustStatus = { trusted, source: trusted ? 'flag' : 'none' }
  const listeners = new Set<(s: TrustStatus) => void>()
  const trust = {
    mayLoad: () => status.trusted,
    isTrusted: () => status.trusted,
    subscribe(listener: (s: TrustStatus) => void) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  } as unknown as ProjectTrust
  return {
    trust,
    answer(next: boolean) {
      status = { trusted: next, source: 'session' }
      for (const listener of listeners) listener(status)
    },
  }
}

async function install(trusted: boolean) {
  const home = join(root, 'home')
  const paths = resolvePaths({ HOME: home })
  const table = createCommandTable(BUILTIN_COMMANDS)
  const reports: string[] = []
  const folder = trustOf(trusted)
  const installed = await installUserCommands({
    table,
    paths,
    workspace: join(root, 'ws'),
    home,
    read: boundaryReaders({
      workspace: join(root, 'ws'),
      home,
      additionalDirs: [],
      appDirs: [paths.configDir],
      config: { rules: { allow: [], ask: [], deny: [] } },
    }),
    trust: folder.trust,
    report: (text, level) => reports.push(`${level}: ${text}`),
  })
  const listed = () =>
    table
      .list()
      .filter((c) => c.source)
      .map((c) => c.description)
  return { table, reports, listed, folder, installed }
}

describe('installUserCommands', () => {
  beforeEach(async () => {
    await write('home/.config/agent-tui/commands/deploy.md', '---\ndescription: my deploy\n---\nDeploy')
    await write('home/.config/agent-tui/commands/mine.md', 'Mine')
    await write('home/.config/agent-tui/commands/help.md', 'Not the help')
    await write('ws/.agent-tui/commands/deploy.md', '---\ndescription: the team deploy\n---\nDeploy')
    await write('ws/.agent-tui/commands/bad.md', '---\nallowed-tools: Bash(\n---\nx')
  })

  it("untrusted: the user's commands only; a built-in name is reported with the file", async () => {
    const { listed, reports } = await install(false)
    expect(listed()).toEqual(['my deploy (user)', 'Mine (user)'])
    expect(reports).toEqual([
      'warn: ~/.config/agent-tui/commands/help.md: /help is a built-in command; this file is left out (rename it)',
    ])
  })

  it("trusted: the project's too, hiding the user's of the same name; a bad file is named with its field", async () => {
    const { listed, reports } = await install(true)
    expect(listed()).toEqual(['the team deploy (project)', 'Mine (user)'])
    expect(reports).toContain(
      'warn: .agent-tui/commands/bad.md: allowed-tools: rule "Bash(" must end with ")" (form: Tool(specifier))',
    )
  })

  it('follows the trust answer live, and stop() takes them all out', async () => {
    const { listed, folder, installed, table, reports } = await install(false)
    folder.answer(true)
    await expect.poll(listed).toEqual(['the team deploy (project)', 'Mine (user)'])
    folder.answer(false)
    await expect.poll(listed).toEqual(['my deploy (user)', 'Mine (user)'])
    folder.answer(true)
    await expect.poll(listed).toEqual(['the team deploy (project)', 'Mine (user)'])
    // Each problem is said once, however often the folder is reloaded.
    expect(reports.filter((r) => r.includes('bad.md'))).toHaveLength(1)
    installed.stop()
    expect(table.list()).toHaveLength(BUILTIN_COMMANDS.length)
  })
})
