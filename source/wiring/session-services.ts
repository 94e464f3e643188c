import { join, resolve } from 'node:path'
import type { RuntimeCommands, SessionServices, SessionSummary, TurnCommands } from '../agent/commands.js'
import { loadImageAttachment } from '../agent/images.js'
import { appendMemory, listMemoryFiles } from '../agent/project-memory.js'
import { atomicWriteFile } from '../tools/atomic-write.js'

export interface SessionServiceOptions {
  workspace: string
  sessionId: string
  /** Where relative paths resolve: the directory Bash's `cd` has left the session in. */
  cwd(): string
  /** Renders the transcript for `/export` (the UI's renderer: the runtime stays UI-free). */
  exportMarkdown?: () => string
  /** Where `/export` writes without a path (the state directory's `exports/`); default: the workspace. */
  exportDir?: string
  /** This directory's sessions, this one included (for `/resume`). */
  sessions?: () => Promise<SessionSummary[]>
}

/** What a session offers besides its turns: images, export, memory files, the other sessions. */
export function createSessionServices(opts: SessionServiceOptions): SessionServices {
  return {
    loadImage: (path) => loadImageAttachment(path, opts.cwd()),
    async exportTranscript(path) {
      if (!opts.exportMarkdown) throw new Error('export is not available')
      const target = path
        ? resolve(opts.cwd(), path)
        : join(opts.exportDir ?? opts.workspace, `agent-tui-${opts.sessionId}.md`)
      await atomicWriteFile(target, opts.exportMarkdown())
      return target
    },
    memoryFiles: () => listMemoryFiles(opts.workspace),
    addMemory: (text) => appendMemory(opts.workspace, text),
    async listSessions() {
      const all = (await opts.sessions?.()) ?? []
      return all.filter((s) => s.id !== opts.sessionId)
    },
  }
}

/**
 * The UI's commands as one object: the runtime's turn control, and the session's services beside it.
 * A service wins over a runtime method of the same name; runtime methods are called on the runtime.
 */
export function sessionCommands(runtime: TurnCommands, services: SessionServices): RuntimeCommands {
  const bound = new Map<PropertyKey, unknown>()
  return new Proxy(runtime as RuntimeCommands, {
    get(target, key) {
      if (Object.hasOwn(services, key)) return services[key as keyof SessionServices]
      const value: unknown = Reflect.get(target, key, target)
      if (typeof value !== 'function') return value
      // One function per name, so a command read twice is the same function.
      if (!bound.has(key)) bound.set(key, value.bind(target))
      return bound.get(key)
    },
  })
}
