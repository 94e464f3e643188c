import type { AppPaths } from '../../config/app-paths.js'
import type { Store } from '../../store/create-store.js'
import type { ProjectTrust } from '../../config/project-trust.js'
import { type ClaudeCodePaths, extensionLayers, pickByName } from '../../config/claude-code.js'
import { describeProblem } from '../../extensions/problems.js'
import { loadSkillDir } from '../../extensions/skill-files.js'
import type { ExtensionProblem, SkillDefinition } from '../../extensions/types.js'
import type { SkillListing } from '../../agent/runtime/commands.js'
import type { InstructionFile } from '../../tools/instruction-file.js'
import { loadSkillPieces, type SkillCatalog, type SkillEntry } from '../../tools/skill.js'
import { expandCommand } from '../../extensions/expand.js'
import type { SkillCommands } from './load-commands.js'
import type { InstructionReaders } from './instruction-readers.js'
import { type LayerLoad, layerEntries, layerLabel, loadLayers } from './extension-layers.js'
import type { StatusEntry } from '../../agent/runtime/commands.js'
import { relative } from 'node:path'
import type { EnabledPlugin } from '../../plugins/session-plugins.js'

export interface SessionSkillOptions {
  paths: AppPaths
  workspace: string
  home: string
  /** The read boundary for the user's and the project's skill files. */
  read: InstructionReaders
  /** The folder's trust: project skills load only while it is trusted (none without it). */
  trust?: ProjectTrust
  /** Claude Code's places (`.claude/skills`, `~/.claude/skills`), or null when they are not read. */
  claude?: ClaudeCodePaths | null
  /** Where each folder stands, for `/status` (again after a trust answer). */
  record?(entries: StatusEntry[]): void
  /** The enabled plugins: their skills come as `plugin:name`, below the user's own. */
  plugins?: readonly EnabledPlugin[]
}

/** The skills of one session: what the Skill tool offers at start, and what it finds now. */
export interface SessionSkills {
  catalog: SkillCatalog
  /** The skills at session start, for the Skill tool's description (written once). */
  offered: readonly SkillDefinition[]
  /** Whether more may come (the folder brings skills but is not trusted yet): the tool says so. */
  more: boolean
  /** `file: field: message` for each skill file that could not be used. */
  problems: string[]
  /** The skills now (the user's, and the project's while trusted). */
  all(): readonly SkillDefinition[]
  /** Folders the model may read without asking (each skill's own). */
  dirs(): string[]
  /**
   * Follows trust answers: the project's skills are added (or dropped), and `changed` gets what to tell
   * the model in the conversation (the tool's description never changes). Returns stop.
   */
  followTrust(changed: (change: SkillChange) => void): () => void
  /** Called after the project's skills came or went (for the `/name` entries to follow). Returns stop. */
  subscribe(listener: () => void): () => void
}

export interface SkillChange {
  added: string[]
  gone: string[]
  /** For the model, at its next step; null when no skill came or went. */
  announcement: string | null
  /** `file: field: message` for each skill file just read that could not be used. */
  problems: string[]
}

export async function loadSessionSkills(opts: SessionSkillOptions): Promise<SessionSkills> {
  const trust = opts.trust
  const load = (trusted: boolean) => loadSkillLayers(opts, trusted)
  const first = await load(trust?.mayLoad('skill') === true)
  // The folder brings skills that trust would enable: the tool must exist to load them later.
  const pending = first.waiting > 0
  let current = first.skills
  opts.record?.(first.entries)
  const listeners = new Set<() => void>()
  const catalog: SkillCatalog = {
    find: (name) => current.find((s) => s.name === name),
    list: () => current,
  }
  return {
    catalog,
    offered: current,
    more: pending,
    problems: first.problems,
    all: () => current,
    dirs: () => current.map((s) => s.dir),
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    followTrust(changed) {
      if (!trust) return () => {}
      return trust.subscribe(async (status) => {
        const before = current
        const loaded = await load(status.trusted)
        opts.record?.(loaded.entries)
        current = loaded.skills
        for (const listener of [...listeners]) listener()
        const added = current.filter((s) => !before.some((b) => b.name === s.name && b.path === s.path))
        const gone = before.filter((b) => !current.some((s) => s.name === b.name && s.path === b.path))
        const lines = [
          ...(added.length
            ? ['New skills are available; load one with the Skill tool when a task matches it:']
            : []),
          ...added.map((s) => `- ${s.name}: ${s.description}`),
          ...(gone.length
            ? [`These skills are no longer available: ${gone.map((s) => s.name).join(', ')}`]
            : []),
        ]
        changed({
          added: added.map((s) => s.name),
          gone: gone.map((s) => s.name),
          announcement: lines.length ? lines.join('\n') : null,
          problems: loaded.problems,
        })
      })
    },
  }
}

/** The skills as `/skills` lists them: every one, its whole description, and the files that could not be used. */
export function skillListing(skills: SessionSkills): SkillListing {
  return {
    skills: skills.all().map((s) => ({
      name: s.name,
      description: s.description,
      source: s.plugin ? `plugin:${s.plugin}` : s.scope,
      file: s.file,
    })),
    problems: skills.problems,
  }
}

/**
 * Each skill runnable as `/name`, rendered as Claude Code renders a skill run so: its instructions (read
 * through the boundary) with the arguments put in and its `` !`…` `` and `@file` pieces cut out exactly as
 * a command's (expandCommand), so they run under the same permission path before anything is sent. The
 * lines about its folder are the session's, not the file's: they are text, never expanded.
 */
export function skillCommands(
  skills: SessionSkills,
  read: (skill: SkillEntry) => Promise<InstructionFile>,
): SkillCommands {
  return {
    list: () => skills.all(),
    subscribe: (listener) => skills.subscribe(listener),
    async prompt(name, args) {
      const skill = skills.all().find((s) => s.name === name)
      if (!skill) throw new Error(`The skill "${name}" is no longer available`)
      const { head, body, tail } = await loadSkillPieces(skill, read)
      const expanded = expandCommand({ name, file: skill.file, allowedTools: [] }, body, args)
      const typed = args.trim()
      return {
        text: typed ? `/${name} ${typed}` : `/${name}`,
        command: {
          ...expanded,
          skill: true,
          parts: [
            { kind: 'text', text: head },
            ...expanded.parts,
            ...(tail ? [{ kind: 'text' as const, text: tail }] : []),
          ],
        },
      }
    },
  }
}

/** The enabled plugins' skills, each named `plugin:name` (the user's: they load in any folder). */
async function loadPluginSkills(
  opts: SessionSkillOptions,
): Promise<{ skills: SkillDefinition[]; problems: ExtensionProblem[] }> {
  const skills: SkillDefinition[] = []
  const problems: ExtensionProblem[] = []
  for (const plugin of opts.plugins ?? []) {
    for (const dir of plugin.manifest.skills) {
      const label = (path: string) => `plugin ${plugin.name}: ${relative(plugin.root, path)}`
      const loaded = await loadSkillDir({ dir, scope: 'user', label, read: opts.read.user })
      problems.push(...loaded.problems)
      for (const skill of loaded.skills) {
        const name = `${plugin.name}:${skill.name}`
        if (!skills.some((s) => s.name === name)) skills.push({ ...skill, name, plugin: plugin.name })
      }
    }
  }
  return { skills, problems }
}

/**
 * The skills of every folder (the project's only when `trusted`), one per name in the folders' order
 * (extensionLayers: agent-tui's before Claude Code's, the project's before the user's).
 */
async function loadSkillLayers(
  opts: SessionSkillOptions,
  trusted: boolean,
): Promise<{ skills: SkillDefinition[]; problems: string[]; entries: StatusEntry[]; waiting: number }> {
  const layers = extensionLayers('skills', {
    workspace: opts.workspace,
    configDir: opts.paths.configDir,
    claude: opts.claude ?? null,
  })
  const loads: Array<LayerLoad<SkillDefinition>> = await loadLayers(layers, trusted, async (layer) => {
    const loaded = await loadSkillDir({
      dir: layer.dir,
      scope: layer.scope,
      label: (path) => layerLabel(path, opts.workspace, opts.home),
      read: opts.read[layer.scope],
    })
    return { items: loaded.skills, problems: loaded.problems }
  })
  const { kept, hidden } = pickByName(
    loads.flatMap((l) => l.items.map((item) => ({ item, layer: l.layer, file: item.file }))),
    (name) => `the skill ${name}`,
  )
  const problems: ExtensionProblem[] = loads.flatMap((l) => l.problems)
  const plugins = await loadPluginSkills(opts)
  problems.push(...plugins.problems)
  return {
    skills: [...kept, ...plugins.skills.filter((p) => !kept.some((s) => s.name === p.name))],
    problems: [...problems, ...hidden.map((h) => ({ ...h, skipped: false }))].map(describeProblem),
    entries: layerEntries(loads, 'skill', opts.workspace, opts.home),
    waiting: loads.reduce((n, l) => n + l.waiting, 0),
  }
}

/**
 * Project skills that come and go with a trust answer: the folders readable without asking follow, the
 * model is told at its next step, and a notice says so (and names the files that could not be used).
 * Returns stop.
 */
export function announceSkills(
  skills: SessionSkills,
  session: {
    store: Store
    runtime: { announce(announcement: { content: string }, notice?: string): void }
    trustedReadDirs: string[]
  },
): () => void {
  const { store } = session
  let notices = 0
  const warn = (text: string) =>
    store.dispatch({
      type: 'notice/added',
      id: `skills-${Date.now().toString(36)}-${++notices}`,
      level: 'warn',
      text,
    })
  const fixed = session.trustedReadDirs.length - skills.dirs().length
  return skills.followTrust((change) => {
    session.trustedReadDirs.splice(fixed, Number.POSITIVE_INFINITY, ...skills.dirs())
    for (const problem of change.problems) warn(problem)
    if (!change.announcement) return
    const what = [
      change.added.length ? `skills available now: ${change.added.join(', ')}` : '',
      change.gone.length ? `skills gone: ${change.gone.join(', ')}` : '',
    ]
    // Announced as a message at the model's next step: the Skill tool's description never changes.
    session.runtime.announce(
      { content: change.announcement },
      `${what.filter(Boolean).join('; ')} (the agent is told at its next step)`,
    )
  })
}
