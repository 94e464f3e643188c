import { listEndpointModels, type ModelInfo } from '../../config/endpoint.js'
import type { Origin } from '../../config/resolve-config.js'
import { type ChatReply, probeToolCalls, testReply } from '../../provider/endpoint-probe.js'
import { resolveProfile, type ModelProfile } from '../../provider/model-profiles.js'
import { serverKindOf, serverLabel } from '../../provider/tool-support.js'
import type { Check } from './report.js'

/**
 * The endpoint's checks (docs/troubleshooting.md#doctor): reachable with this key, the model listed, its
 * context window and where that comes from, one short test request (streaming? usage?), and whether it
 * really does tool calls (one tiny request with a trivial tool, required when "auto" got prose).
 */
export interface EndpointInput {
  baseUrl: string | undefined
  apiKey: string | undefined
  /** The custom request headers configured for this endpoint's origin; none for another. */
  headers?: Record<string, string> | undefined
  model: string | undefined
  origins: {
    baseUrl: Origin | 'probed' | 'session'
    apiKey: Origin | 'stored' | 'session'
    model: Origin | 'session'
  }
  /** Where the key came from, as said: `OPENAI_API_KEY`, `~/.config/agent-tui/credentials.json`… */
  keySource?: string
  /** Loopback servers probed when nothing was configured (said when none answered). */
  probed?: ReadonlyArray<{ name: string; url: string; result: string }>
  /** The settings' `models` overrides (a window set there beats the endpoint's). */
  overrides?: Record<string, Partial<ModelProfile>>
  fetchImpl?: typeof fetch
  /** Per request (default 60 s). */
  timeoutMs?: number
}

const ORIGIN: Record<string, string> = {
  flag: 'a flag',
  env: 'the environment',
  settings: 'settings',
  default: 'the default',
  probed: 'found on loopback',
  stored: 'credentials.json',
  session: 'this session',
  none: 'nowhere',
}

const SET_UP = 'run agent-tui and use the setup form (or /login), or pass --base-url URL --model NAME'

export async function endpointChecks(input: EndpointInput): Promise<Check[]> {
  const { baseUrl } = input
  if (!baseUrl) {
    const lines = (input.probed ?? []).map((p) => `${p.name.padEnd(10)} ${p.url.padEnd(28)} ${p.result}`)
    return [
      {
        id: 'endpoint',
        title: 'Endpoint',
        status: 'fail',
        detail: 'none configured, and no local server answered',
        fix: SET_UP,
        lines,
        essential: true,
      },
      ...skipped('no endpoint'),
    ]
  }
  const opts = {
    ...(input.fetchImpl ? { fetchImpl: input.fetchImpl } : {}),
    timeoutMs: input.timeoutMs ?? 60_000,
  }
  const listing = await listEndpointModels(baseUrl, {
    ...opts,
    apiKey: input.apiKey,
    headers: input.headers,
    timeoutMs: Math.min(opts.timeoutMs, 10_000),
  })
  const from = `(${ORIGIN[input.origins.baseUrl] ?? input.origins.baseUrl})`
  const key = input.apiKey ? `key from ${input.keySource ?? ORIGIN[input.origins.apiKey]}` : 'no key'
  const checks: Check[] = []
  let models: ModelInfo[] = []
  if (listing.ok) {
    models = listing.models
    checks.push({
      id: 'endpoint',
      title: 'Endpoint',
      status: 'ok',
      detail: `${baseUrl} ${from} answers, ${key}, lists ${models.length} model${models.length === 1 ? '' : 's'}`,
      essential: true,
    })
  } else if (listing.status === 401 || listing.status === 403) {
    checks.push({
      id: 'endpoint',
      title: 'Endpoint',
      status: 'fail',
      detail: `${baseUrl} ${from} refused the key: ${listing.error} (${key})`,
      fix: 'check the key: /login stores a new one, or set OPENAI_API_KEY',
      essential: true,
    })
    return [...checks, ...skipped('the key was refused')]
  } else if (listing.status === undefined) {
    checks.push({
      id: 'endpoint',
      title: 'Endpoint',
      status: 'fail',
      detail: `${baseUrl} ${from}: ${listing.error}`,
      fix: 'start the server, or fix the base URL (/login)',
      essential: true,
    })
    return [...checks, ...skipped('the endpoint is not reachable')]
  } else {
    // It answered, but not with a list: chat may still work (the test below tells).
    const hint = listing.status === 404 ? ' — the base URL usually ends in /v1' : ''
    checks.push({
      id: 'endpoint',
      title: 'Endpoint',
      status: 'warn',
      detail: `${baseUrl} ${from} answers, but listing the models failed: ${listing.error}${hint}`,
      essential: true,
    })
  }
  const model = input.model ?? models[0]?.id
  if (!model) {
    checks.push({
      id: 'model',
      title: 'Model',
      status: 'fail',
      detail: 'none configured, and the endpoint lists none',
      fix: 'pass --model NAME, or pick one with /login',
      essential: true,
    })
    return [...checks, ...skipped('no model')]
  }
  const listed = models.find((m) => m.id === model)
  const modelFrom = input.model ? ORIGIN[input.origins.model] : "the endpoint's first"
  const shown = models
    .slice(0, 5)
    .map((m) => m.id)
    .join(', ')
  checks.push(
    listed || models.length === 0
      ? {
          id: 'model',
          title: 'Model',
          status: 'ok',
          detail: `${model} (${modelFrom})${models.length === 0 ? ', not checked against a listing' : ', listed'}`,
          essential: true,
        }
      : {
          id: 'model',
          title: 'Model',
          status: 'fail',
          detail: `${model} (${modelFrom}) is not among the ${models.length} listed: ${shown}${models.length > 5 ? ', …' : ''}`,
          fix: 'pick a listed model: /model in a session, or /login',
          essential: true,
        },
  )
  checks.push(windowCheck(model, listed, input.overrides))
  const target = { baseUrl, apiKey: input.apiKey, headers: input.headers, model }
  const reply = await testReply(target, opts)
  checks.push(...replyChecks(reply, model))
  if (!reply.ok) {
    checks.push({
      id: 'tool-calls',
      title: 'Tool calls',
      status: 'skip',
      detail: 'not checked: the test request failed',
      essential: true,
    })
    return checks
  }
  checks.push(await toolCheck(target, serverKindOf(baseUrl, listed?.ownedBy), opts))
  return checks
}

function skipped(why: string): Check[] {
  return [
    { id: 'model', title: 'Model', status: 'skip', detail: `not checked: ${why}`, essential: true },
    { id: 'tool-calls', title: 'Tool calls', status: 'skip', detail: `not checked: ${why}`, essential: true },
  ]
}

function windowCheck(
  model: string,
  listed: ModelInfo | undefined,
  overrides: EndpointInput['overrides'],
): Check {
  const profile = resolveProfile(model, {
    ...(overrides ? { overrides } : {}),
    ...(listed?.contextLength ? { endpointContextLength: listed.contextLength } : {}),
  })
  const source =
    profile.contextLimitSource === 'endpoint'
      ? "the endpoint's model listing"
      : profile.contextLimitSource === 'settings'
        ? 'settings "models"'
        : profile.family === 'default'
          ? 'the default (the model is not in the profile table)'
          : `the profile table (${profile.family})`
  const guessed = profile.contextLimitSource === undefined && profile.family === 'default'
  return {
    id: 'window',
    title: 'Context window',
    status: guessed ? 'warn' : 'ok',
    detail: `${profile.contextLimit.toLocaleString('en-US')} tokens, from ${source}`,
    ...(guessed ? { fix: `set it in settings: "models": {"${model}": {"contextLimit": N}}` } : {}),
    essential: false,
  }
}

function replyChecks(reply: ChatReply, model: string): Check[] {
  if (!reply.ok) {
    const fix =
      reply.status === 404
        ? 'check the model id (and that the base URL ends in /v1)'
        : reply.status === 401 || reply.status === 403
          ? 'check the key (/login)'
          : 'see the server’s log'
    return [
      {
        id: 'chat',
        title: 'Test request',
        status: 'fail',
        detail: `${model}: ${reply.error}`,
        fix,
        essential: true,
      },
    ]
  }
  const said = reply.text.trim().replace(/\s+/g, ' ')
  return [
    {
      id: 'chat',
      title: 'Test request',
      status: 'ok',
      detail: `answered in ${reply.ms} ms: ${said === '' ? '(empty)' : JSON.stringify(said.slice(0, 40))}`,
      essential: true,
    },
    reply.streamed
      ? { id: 'streaming', title: 'Streaming', status: 'ok', detail: 'the reply streams', essential: false }
      : {
          id: 'streaming',
          title: 'Streaming',
          status: 'warn',
          detail: 'the server answered all at once (it ignores "stream")',
          fix: 'replies appear only when complete; a proxy in between may buffer them',
          essential: false,
        },
    reply.usage
      ? { id: 'usage', title: 'Token usage', status: 'ok', detail: 'reported', essential: false }
      : {
          id: 'usage',
          title: 'Token usage',
          status: 'warn',
          detail: 'not reported (no "usage" in the reply)',
          fix: 'the context meter and costs fall back to estimates; newer server versions report it with stream_options.include_usage',
          essential: false,
        },
  ]
}

async function toolCheck(
  target: {
    baseUrl: string
    apiKey: string | undefined
    headers?: Record<string, string> | undefined
    model: string
  },
  kind: ReturnType<typeof serverKindOf>,
  opts: { fetchImpl?: typeof fetch; timeoutMs: number },
): Promise<Check> {
  const probe = await probeToolCalls(target, kind, opts)
  const base = { id: 'tool-calls', title: 'Tool calls', essential: true }
  if (probe.kind === 'calls')
    return {
      ...base,
      status: 'ok',
      detail: probe.onlyForced
        ? 'real tool calls, but only when required (with "auto" the model answered in prose)'
        : 'the endpoint returns real tool calls',
    }
  if (probe.kind === 'refused')
    return {
      ...base,
      status: 'fail',
      detail: `${serverLabel(kind, target.baseUrl)} refused a request with tools: ${probe.error}`,
      ...(probe.fix ? { fix: probe.fix } : {}),
    }
  const said = probe.text.trim().replace(/\s+/g, ' ')
  return {
    ...base,
    status: 'fail',
    detail: probe.why,
    lines: said ? [`it answered: ${JSON.stringify(said.length > 60 ? `${said.slice(0, 59)}…` : said)}`] : [],
    fix: probe.fix,
  }
}
