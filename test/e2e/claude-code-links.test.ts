/**
 * A symlinked `~/.claude` (dotfiles, GNU stow) is the user's own and is read as if it were there; a
 * repository's `.claude` that links outside the repository is not (docs/coming-from-claude-code.md).
 * The built CLI, headless, against the scripted server; what the model was sent is asserted.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'

const env = setupE2eEnv()

type Msg = { role: string; content?: unknown }
type Tool = { function: { name: string; description: string } }
const messages = (i: number) => (env.server.requests[i]?.body.messages ?? []) as Msg[]
const system = (i = 0) => String(messages(i).find((m) => m.role === 'system')?.content ?? '')
const description = (name: string) =>
  ((env.server.requests[0]?.body.tools ?? []) as Tool[]).find((t) => t.function.name === name)?.function
    .description ?? ''

async function put(root: string, path: string, text: string): Promise<void> {
  const file = join(root, path)
  await mkdir(dirname(file), { recursive: true })
  await writeFile(file, text)
}

/** A Claude Code folder's usual contents, each with a marker, in `dir`. */
async function claudeFolder(dir: string, tag: string): Promise<void> {
  await put(dir, 'CLAUDE.md', `${tag}-MEMORY: be brief.\n@./rules.md\n`)
  await put(dir, 'rules.md', `${tag}-RULES: never push to main.\n`)
  await put(dir, `commands/${tag.toLowerCase()}-cmd.md`, `---\ndescription: A command\n---\n${tag}-COMMAND\n`)
  await put(
    dir,
    `agents/${tag.toLowerCase()}-agent.md`,
    `---\nname: ${tag.toLowerCase()}-agent\ndescription: An agent of ${tag}\n---\nYou help.\n`,
  )
  await put(
    dir,
    `skills/${tag.toLowerCase()}-skill/SKILL.md`,
    `---\nname: ${tag.toLowerCase()}-skill\ndescription: A skill of ${tag}\n---\nSteps.\n`,
  )
}

describe('symbolic links to .claude folders', () => {
  it("a ~/.claude linked into ~/dotfiles is the user's own: CLAUDE.md, its import, commands, agents and skills are read", async () => {
    const { home } = env.box
    await claudeFolder(join(home, 'dotfiles', 'claude'), 'USER')
    await symlink(join(home, 'dotfiles', 'claude'), join(home, '.claude'))
    env.server.enqueue({ text: 'done' })
    const r = await env.cli(['-p', '/user-cmd'])
    expect(r.stderr).not.toContain('left out')
    expect(r.code).toBe(0)
    expect(system()).toContain('USER-MEMORY')
    expect(system()).toContain('USER-RULES')
    expect(
      messages(0)
        .filter((m) => m.role === 'user')
        .at(-1)?.content,
    ).toContain('USER-COMMAND')
    expect(description('Agent')).toContain('user-agent')
    expect(description('Skill')).toContain('user-skill')
  })

  it('a file in the linked ~/.claude that links elsewhere again is still judged where it resolves', async () => {
    const { home } = env.box
    await claudeFolder(join(home, 'dotfiles', 'claude'), 'USER')
    await put(home, 'private/notes.md', 'PRIVATE-NOTES\n')
    await writeFile(join(home, 'dotfiles', 'claude', 'rules.md'), '')
    await symlink(join(home, 'dotfiles', 'claude'), join(home, '.claude'))
    await symlink(join(home, 'private', 'notes.md'), join(home, 'dotfiles', 'claude', 'notes.md'))
    await writeFile(join(home, 'dotfiles', 'claude', 'CLAUDE.md'), 'USER-MEMORY\n@./notes.md\n')
    env.server.enqueue({ text: 'done' })
    const r = await env.cli(['-p', 'hi'])
    expect(r.code).toBe(0)
    expect(system()).toContain('USER-MEMORY')
    expect(system()).not.toContain('PRIVATE-NOTES')
  })

  it("a repository's .claude linking outside the repository is refused, trusted or not", async () => {
    const { home, workspace } = env.box
    await claudeFolder(join(home, 'elsewhere', 'claude'), 'REPO')
    await symlink(join(home, 'elsewhere', 'claude'), join(workspace, '.claude'))
    env.server.enqueue({ text: 'done' })
    const r = await env.cli(['-p', 'hi', '--trust-project'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('.claude/CLAUDE.md was left out: reads outside the workspace need consent')
    for (const marker of ['REPO-MEMORY', 'REPO-RULES']) expect(system()).not.toContain(marker)
    expect(description('Agent')).not.toContain('repo-agent')
    expect(description('Skill')).not.toContain('repo-skill')
  })
})
