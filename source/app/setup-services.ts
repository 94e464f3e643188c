import type { AppPaths } from '../config/app-paths.js'
import { DEFAULT_PROBE_TARGETS, listEndpointModels, type ProbeTarget } from '../config/endpoint.js'
import { type KeyChoice, saveEndpoint } from '../config/save-endpoint.js'
import type { ProbedServer } from '../ui/setup/setup-model.js'
import type { SetupServices } from '../ui/setup/use-setup-form.js'

/**
 * The setup form's effects for real: the loopback probe, the endpoint's model listing, one test request
 * and the save (docs/configuration.md#setting-up-in-agent-tui). Requests go over the provider's own
 * fetch (node:http), as a session's do.
 */
export interface SetupServiceOptions {
  paths: Pick<AppPaths, 'configDir' | 'userSettingsFile'>
  env: Readonly<Record<string, string | undefined>>
  probeTargets?: readonly ProbeTarget[]
  /** Total budget of the loopback probe (default 300 ms, as at start-up). */
  probeBudgetMs?: number
  /** The test request's limit (default 90 s: a local server may load the model first). */
  testTimeoutMs?: number
  /**
   * The configured request headers for a base URL (config/headers.ts headersFor): a gateway that needs
   * them is listed and tested with them; another origin gets none.
   */
  headersFor?: (baseUrl: string) => Record<string, string> | undefined
}

const LIST_TIMEOUT_MS = 10_000

export function createSetupServices(opts: SetupServiceOptions): SetupServices {
  let fetchImpl: Promise<typeof fetch> | undefined
  const fetcher = () => {
    fetchImpl ??= import('../provider/node-fetch.js').then((m) => m.createNodeFetch())
    return fetchImpl
  }
  const keyOf = (key: KeyChoice) => keyOfChoice(key, opts.env)
  return {
    async probe() {
      const f = await fetcher()
      const budget = opts.probeBudgetMs ?? 300
      const targets = opts.probeTargets ?? DEFAULT_PROBE_TARGETS
      return Promise.all(
        targets.map(async (target): Promise<ProbedServer> => {
          const listing = await listEndpointModels(target.url, { fetchImpl: f, timeoutMs: budget })
          const url = target.url.replace(/\/+$/, '')
          if (!listing.ok) return { name: target.name, url, result: listing.error, answered: false }
          const n = listing.models.length
          return n === 0
            ? { name: target.name, url, result: 'answered, but lists no models', answered: false }
            : { name: target.name, url, result: `${n} model${n === 1 ? '' : 's'}`, answered: true }
        }),
      )
    },
    async listModels(baseUrl, key, signal) {
      const listing = await listEndpointModels(baseUrl, {
        apiKey: keyOf(key),
        headers: opts.headersFor?.(baseUrl),
        fetchImpl: await fetcher(),
        timeoutMs: LIST_TIMEOUT_MS,
        signal,
      })
      if (listing.ok) return { ok: true, models: listing.models.map((m) => m.id) }
      return {
        ok: false,
        error: listing.error,
        ...(listing.status === undefined ? {} : { status: listing.status }),
        // No HTTP answer at all: the URL is what to change.
        unreachable: listing.status === undefined,
      }
    },
    async test(baseUrl, key, model, signal) {
      const { testReply } = await import('../provider/endpoint-probe.js')
      const reply = await testReply(
        { baseUrl, apiKey: keyOf(key), headers: opts.headersFor?.(baseUrl), model },
        { fetchImpl: await fetcher(), signal, timeoutMs: opts.testTimeoutMs ?? 90_000 },
      )
      if (!reply.ok) return { ok: false, error: testFailure(reply.error, reply.status) }
      const said = reply.text.trim().replace(/\s+/g, ' ')
      const answer = said === '' ? 'an empty reply' : `"${said.length > 40 ? `${said.slice(0, 39)}…` : said}"`
      const how = reply.streamed ? '' : ' (all at once: the server does not stream)'
      return { ok: true, summary: `${model} answered in ${seconds(reply.ms)}: ${answer}${how}` }
    },
    async save(choice) {
      try {
        await saveEndpoint(opts.paths, choice)
        return { ok: true }
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) }
      }
    },
    envHas: (name) => Boolean(opts.env[name]),
  }
}

/** The key a choice sends: the typed one, the variable's value, or none. */
export function keyOfChoice(
  key: KeyChoice,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (key.kind === 'stored') return key.key
  return key.kind === 'env' ? env[key.name] || undefined : undefined
}

function testFailure(error: string, status: number | undefined): string {
  if (status === 401 || status === 403) return `${error} — the key was refused`
  if (status === 404) return `${error} — check the model id (and that the base URL ends in /v1)`
  return error
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`
}
