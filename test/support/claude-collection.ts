/**
 * A large Claude Code collection for tests and `npm run bench`: N agents, N skills and N commands written
 * into a config folder (`agents/*.md`, `skills/<name>/SKILL.md`, `commands/*.md`), made from the real
 * files under test/fixtures/claude-code/ (Anthropic's plugins and skills, wshobson/agents; see each
 * SOURCE.md). The real files come first, unchanged; once they run out, copies of them follow under new
 * names (`code-reviewer-2`: only the frontmatter's `name:` line changes), so the descriptions the tool
 * budgets are measured against are real ones.
 */
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'claude-code')

export interface CollectionCounts {
  agents: number
  skills: number
  commands: number
}

export interface WrittenCollection {
  /** The names as written, in order (the first ones are the real files' own). */
  agents: string[]
  skills: string[]
  commands: string[]
}

/** Every file of `kind` in the fixtures: agent and command files, or skill folders' SKILL.md. */
export async function fixtureFiles(kind: 'agents' | 'commands' | 'skills'): Promise<string[]> {
  const found: string[] = []
  const walk = async (dir: string): Promise<void> => {
    for (const name of (await readdir(dir)).sort()) {
      const path = join(dir, name)
      if (!(await stat(path)).isDirectory()) continue
      if (name === kind) {
        for (const entry of (await readdir(path)).sort()) {
          const file = kind === 'skills' ? join(path, entry, 'SKILL.md') : join(path, entry)
          if (kind === 'skills' ? await exists(file) : entry.endsWith('.md')) found.push(file)
        }
      } else await walk(path)
    }
  }
  await walk(FIXTURES)
  return found
}

export async function writeClaudeCollection(
  configDir: string,
  counts: CollectionCounts = { agents: 100, skills: 100, commands: 100 },
): Promise<WrittenCollection> {
  const written: WrittenCollection = { agents: [], skills: [], commands: [] }
  for (const kind of ['agents', 'skills', 'commands'] as const) {
    const sources = await fixtureFiles(kind)
    const used = new Set<string>()
    for (let i = 0; i < counts[kind]; i++) {
      const source = sources[i % sources.length] as string
      const text = await readFile(source, 'utf8')
      const own = kind === 'skills' ? basename(dirname(source)) : basename(source, '.md')
      const base = kind === 'agents' ? (frontmatterName(text) ?? own) : own
      let name = base
      for (let n = 2; used.has(name); n++) name = `${base}-${n}`
      used.add(name)
      const body = name === base ? text : renamed(text, name)
      const path =
        kind === 'skills' ? join(configDir, 'skills', name, 'SKILL.md') : join(configDir, kind, `${name}.md`)
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, body)
      written[kind].push(name)
    }
  }
  return written
}

function frontmatterName(text: string): string | undefined {
  const block = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? ''
  const name = /^name:[ \t]*["']?([^"'\r\n]+?)["']?[ \t]*$/m.exec(block)?.[1]
  return name && /^[a-z0-9]+(-[a-z0-9]+)*$/.test(name) ? name : undefined
}

/** The same file under another name: its frontmatter's `name:` line (added when it has none). */
function renamed(text: string, name: string): string {
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)
  if (!m) return `---\nname: ${name}\n---\n${text}`
  const block = m[1] ?? ''
  const next = /^name:.*$/m.test(block)
    ? block.replace(/^name:.*$/m, `name: ${name}`)
    : `name: ${name}\n${block}`
  return text.replace(block, next)
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  )
}
