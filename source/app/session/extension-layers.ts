import { stat } from 'node:fs/promises'
import type { ExtensionLayer } from '../../config/claude-code.js'
import { shownPath } from '../../agent/prompt/project-memory.js'
import type { ExtensionProblem } from '../../extensions/types.js'
import type { StatusEntry } from '../../agent/runtime/commands.js'

/**
 * Loading commands, agents or skills from their folders (config/claude-code.ts extensionLayers), and
 * saying for `/status` what each folder gave. A repository's folder in an untrusted workspace is read
 * only to count what trust would bring; nothing of it is used.
 */

export interface LayerLoad<T> {
  layer: ExtensionLayer
  /** What the folder gives now (none while a project folder waits for trust). */
  items: T[]
  problems: ExtensionProblem[]
  /** How many a project folder would give once the workspace is trusted. */
  waiting: number
  exists: boolean
}

export async function loadLayers<T>(
  layers: readonly ExtensionLayer[],
  trusted: boolean,
  load: (layer: ExtensionLayer) => Promise<{ items: T[]; problems: ExtensionProblem[] }>,
): Promise<Array<LayerLoad<T>>> {
  return Promise.all(
    layers.map(async (layer): Promise<LayerLoad<T>> => {
      const exists = await stat(layer.dir).then(
        (info) => info.isDirectory(),
        () => false,
      )
      if (!exists) return { layer, items: [], problems: [], waiting: 0, exists }
      const loaded = await load(layer)
      if (layer.scope === 'project' && !trusted)
        return { layer, items: [], problems: [], waiting: loaded.items.length, exists }
      return { layer, items: loaded.items, problems: loaded.problems, waiting: 0, exists }
    }),
  )
}

/** A file as messages show it: workspace-relative, `~/…`, or absolute. */
export function layerLabel(path: string, workspace: string, home: string): string {
  return shownPath(path, workspace, home)
}

/** One `/status` line per folder that exists: how many it gives, or waits for trust with. */
export function layerEntries(
  loads: ReadonlyArray<LayerLoad<unknown>>,
  noun: string,
  workspace: string,
  home: string,
): StatusEntry[] {
  const count = (n: number) => `${n} ${noun}${n === 1 ? '' : 's'}`
  return loads
    .filter((l) => l.exists)
    .map((l) => {
      const what = `${layerLabel(l.layer.dir, workspace, home)}/`
      const problems = l.problems.filter((p) => p.skipped).length
      const left = problems ? `; ${problems} left out (see the notices)` : ''
      if (l.waiting > 0)
        return {
          what,
          note: `${count(l.waiting)} wait for trust (/trust, or --trust-project)`,
          skipped: true,
        }
      return { what, note: `${count(l.items.length)}${left}` }
    })
}
