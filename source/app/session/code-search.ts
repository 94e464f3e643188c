import { join } from 'node:path'
import type { TaskDirectory } from '../../agent/subagents/task-directory.js'
import { toolMask } from '../../agent/toolset/mask.js'
import { type AppPaths, uniqueProjectKey } from '../../config/app-paths.js'
import { resolveEmbeddings } from '../../config/embeddings-endpoint.js'
import { headersFor } from '../../config/headers.js'
import type { ResolvedConfig } from '../../config/resolve-config.js'
import type { RuntimeGate } from '../../permissions/gate.js'
import type { Store } from '../../store/create-store.js'
import type { AnyTool } from '../../tools/types.js'
import type { HostPrograms } from '../../util/host-programs.js'

/**
 * CodeSearch in a session, when an embeddings model is configured (`embeddings.model` or
 * `--embedding-model`): the tool, and the background index it searches. Without one nothing of it is
 * loaded (both modules are imported here, dynamically) and the tool is not in the request.
 */

export interface SessionCodeSearchPart {
  tool: AnyTool
  /** Starts the background index update (after the first frame). */
  start(): void
  /** The session's file tools wrote this file: the next query updates it first. */
  noteWritten(absPath: string): void
  close(): Promise<void>
}

/** A query while the index is being built waits this long for it, then searches what is there. */
const QUERY_WAIT_MS = 10_000
/**
 * A query looks for files changed outside the session's file tools (an editor, a command, a subagent)
 * when the last look began this long ago: the walk costs ~0.8 s on 10,000 unchanged files.
 */
const RECHECK_MS = 30_000

export async function sessionCodeSearch(opts: {
  config: ResolvedConfig
  endpoint: { baseUrl: string; apiKey?: string }
  paths: AppPaths
  workspace: string
  realWorkspace: string
  additionalDirs: readonly string[]
  /** agent-tui's own settings and state dirs (real paths): never indexed. */
  appDirs: readonly string[]
  gate: RuntimeGate
  directory: TaskDirectory
  store: Store
  programs: HostPrograms
  createdAt: number
  warnings: string[]
  holdYoungGeneration?: () => () => void
}): Promise<SessionCodeSearchPart | undefined> {
  const { config } = opts
  const chatHeaders = headersFor(config.headers, opts.endpoint.baseUrl)
  const resolved = resolveEmbeddings({
    model: config.embeddingModel,
    settings: config.settings.embeddings,
    chat: {
      baseUrl: opts.endpoint.baseUrl,
      ...(opts.endpoint.apiKey ? { apiKey: opts.endpoint.apiKey } : {}),
      ...(chatHeaders ? { headers: chatHeaders } : {}),
    },
    env: process.env,
    warnings: opts.warnings,
  })
  // Masked out (`--tools` without it, a bare deny of it or of Read): not offered, so nothing is indexed.
  const mask = toolMask({ only: config.tools, denied: config.rules.deny })
  if (!resolved || !mask.allows('CodeSearch')) return undefined
  const [{ createCodeSearch }, { createIndexJob }, { createCodeSearchTool }] = await Promise.all([
    import('../../codesearch/service.js'),
    import('../../codesearch/index-job.js'),
    import('../../tools/code-search.js'),
  ])
  let failures = 0
  const service = createCodeSearch({
    workspace: opts.workspace,
    // One file per workspace and model (index-store.ts names it): switching models keeps both indexes.
    index: {
      root: opts.paths.stateDir,
      dir: join(opts.paths.stateDir, 'code-search'),
      key: uniqueProjectKey(opts.workspace),
    },
    endpoint: {
      baseUrl: resolved.baseUrl,
      model: resolved.model,
      ...(resolved.apiKey ? { apiKey: resolved.apiKey } : {}),
      ...(resolved.headers ? { headers: resolved.headers } : {}),
      ...(resolved.dimensions !== undefined ? { dimensions: resolved.dimensions } : {}),
      api: resolved.api,
    },
    images: resolved.images,
    batchSize: resolved.batchSize,
    boundary: {
      workspace: opts.realWorkspace,
      additionalDirs: opts.additionalDirs,
      trustedReadDirs: [],
      appDirs: opts.appDirs,
    },
    // Asked per file, so rules a trust answer brings apply to the next update.
    deniedRead: (abs) => opts.gate.deniedRead?.('CodeSearch')?.(abs),
    programs: opts.programs,
    queryWaitMs: QUERY_WAIT_MS,
    recheckMs: RECHECK_MS,
    ...(opts.holdYoungGeneration ? { duringUpdate: opts.holdYoungGeneration } : {}),
    job: () =>
      opts.directory.addJob((place) =>
        createIndexJob({
          ...place,
          now: Date.now,
          onUpdate: (task) => opts.store.dispatch({ type: 'task/updated', task }),
        }),
      ) as ReturnType<typeof createIndexJob>,
    onFailure: (text) =>
      opts.store.dispatch({
        type: 'notice/added',
        id: `code-search-${opts.createdAt.toString(36)}-${++failures}`,
        level: 'error',
        text,
      }),
  })
  return {
    tool: createCodeSearchTool(service),
    start: () => service.start(),
    noteWritten: (absPath) => service.noteWritten(absPath),
    close: () => service.close(),
  }
}
