import { z } from 'zod'
import { THEME_SETTINGS } from '../store/domain.js'
import { hooksSettingsSchema } from '../user-hooks/hook-settings.js'
import { parseRule } from '../permissions/rules.js'
import { headerNameProblem, headerValueProblem } from './headers.js'
import { TOOL_LIST_NAME } from './tool-list.js'

/**
 * The settings file schema (user, project and local files share it). Objects are strict: an unknown
 * key is an error that names it, because a misspelt key silently doing nothing is worse.
 */

const positiveInt = z.number().int('expected a whole number').positive('expected a number above 0')
const nonNegativeInt = z.number().int('expected a whole number').min(0, 'expected 0 or more')

const httpUrl = z.string().refine(
  (value) => {
    try {
      const url = new URL(value)
      return url.protocol === 'http:' || url.protocol === 'https:'
    } catch {
      return false
    }
  },
  { message: 'expected an http(s) URL such as http://127.0.0.1:11434/v1' },
)

const ruleString = z.string().superRefine((value, ctx) => {
  try {
    parseRule(value)
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message })
  }
})

const ruleList = z.array(ruleString)

export const permissionsSchema = z.strictObject({
  allow: ruleList.optional(),
  ask: ruleList.optional(),
  deny: ruleList.optional(),
})

/** Per-model overrides of the provider's model profile (all optional). */
export const profileOverrideSchema = z.strictObject({
  contextLimit: positiveInt.optional(),
  compactAt: z
    .number()
    .gt(0, 'expected a fraction above 0')
    .max(1, 'expected a fraction of at most 1')
    .optional(),
  observationWindow: nonNegativeInt.optional(),
  charToTokenRatio: z.number().positive('expected a number above 0').optional(),
  architecture: z.string().min(1).optional(),
  supportsTools: z.boolean().optional(),
  supportsVision: z.boolean().optional(),
  supportsAllowedTools: z.boolean().optional(),
  supportsParallelToolCalls: z.boolean().optional(),
  applyPatch: z.union([z.enum(['replace', 'beside']), z.literal(false)]).optional(),
  /** Run tool calls the model writes as text (docs/context.md#text-tool-call-formats). */
  textToolCalls: z.boolean().optional(),
  toolCallFormat: z.enum(['hermes', 'llama', 'mistral', 'deepseek', 'harmony', 'none']).optional(),
  /** The compact system prompt and tool descriptions, or the full ones (default: by the window). */
  promptVariant: z.enum(['full', 'compact']).optional(),
})

export const searchSchema = z.strictObject({
  provider: z.enum(['searxng', 'brave', 'tavily', 'exa']),
  url: httpUrl.optional(),
  apiKeyEnv: z.string().min(1).optional(),
})

const stringRecord = z.record(z.string(), z.string())

/** CodeSearch's embeddings (docs/configuration.md#code-search): the model, and where it is served. */
export const embeddingsSchema = z.strictObject({
  model: z.string().min(1, 'expected an embedding model id'),
  /** Default: the chat endpoint's base URL (and key, and custom headers). */
  baseUrl: httpUrl.optional(),
  apiKey: z.string().optional(),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name such as VOYAGE_API_KEY')
    .optional(),
  dimensions: z.number().int().min(1).max(8192).optional(),
  /** The model takes images too: png, jpg and svg files are embedded as images. */
  images: z.boolean().optional(),
  /** Inputs per request (default 64). */
  batchSize: z.number().int().min(1).max(2048).optional(),
  /** The request shape: OpenAI's `POST /embeddings` (default) or Voyage's `POST /multimodalembeddings`. */
  api: z
    .enum(['openai', 'voyage-multimodal'], { error: 'expected "openai" or "voyage-multimodal"' })
    .optional(),
})

/** Per-server limits (seconds); the global `mcp` settings give the defaults. */
const serverTimeouts = {
  startupTimeoutSeconds: z.number().positive('expected a number of seconds above 0').optional(),
  toolTimeoutSeconds: z.number().positive('expected a number of seconds above 0').optional(),
}

/** Claude Code's `.mcp.json` shape: `type` is optional and names the transport. */
export const stdioServerSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'expected a command to start the server'),
  args: z.array(z.string()).optional(),
  env: stringRecord.optional(),
  ...serverTimeouts,
})

export const httpServerSchema = z.strictObject({
  /** `http` (streamable HTTP, the default for a URL) or `sse` (the older HTTP+SSE transport). */
  type: z.enum(['http', 'streamable-http', 'sse']).optional(),
  // With `${VAR}`s in it, the expanded URL is checked when the server starts.
  url: z.union([httpUrl, z.string().regex(/\$\{/)], {
    error: 'expected an http(s) URL such as https://mcp.example.com/mcp',
  }),
  headers: stringRecord.optional(),
  ...serverTimeouts,
})

export type StdioServerSettings = z.infer<typeof stdioServerSchema>
export type HttpServerSettings = z.infer<typeof httpServerSchema>
export type McpServerSettings = StdioServerSettings | HttpServerSettings

/**
 * An MCP server is either `{command, args?, env?}` (stdio) or `{url, headers?}` (HTTP), optionally with
 * Claude Code's `type`. Dispatching on the keys present gives a precise message instead of zod's
 * generic "invalid union".
 */
export const mcpServerSchema = z.unknown().transform((value, ctx): McpServerSettings => {
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value)
  const type = isObject ? (value as { type?: unknown }).type : undefined
  const schema = !isObject
    ? undefined
    : type === 'stdio'
      ? stdioServerSchema
      : type === 'http' || type === 'streamable-http' || type === 'sse'
        ? httpServerSchema
        : type !== undefined
          ? undefined
          : 'command' in value
            ? stdioServerSchema
            : 'url' in value
              ? httpServerSchema
              : undefined
  if (!schema) {
    ctx.addIssue({
      code: 'custom',
      message:
        type !== undefined && isObject
          ? `unknown server type ${JSON.stringify(type)}; expected "stdio", "http" or "sse"`
          : 'expected {"command": …} (stdio server) or {"url": …} (HTTP server)',
    })
    return z.NEVER
  }
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  for (const issue of parsed.error.issues) {
    // Forward the issue as it is (code, keys, path) so the loader formats it like any other.
    ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0])
  }
  return z.NEVER
})

/** Defaults for every MCP server (each may override them). */
export const mcpSettingsSchema = z.strictObject({
  /** How long a server may take to start and list its tools. */
  startupTimeoutSeconds: z.number().positive('expected a number of seconds above 0').optional(),
  /** How long one tool call may take without progress before it fails as timed out. */
  toolTimeoutSeconds: z.number().positive('expected a number of seconds above 0').optional(),
})

export const circuitBreakerSchema = z
  .strictObject({
    warnAt: positiveInt.optional(),
    pauseAt: positiveInt.optional(),
    hardStopAt: positiveInt.optional(),
    perToolLimit: positiveInt.optional(),
    maxDurationSeconds: positiveInt.optional(),
    silentBehavior: z.enum(['stop', 'warn-and-continue', 'error']).optional(),
  })
  .superRefine((value, ctx) => {
    const order: Array<'warnAt' | 'pauseAt' | 'hardStopAt'> = ['warnAt', 'pauseAt', 'hardStopAt']
    for (let i = 0; i < order.length; i++) {
      for (let j = i + 1; j < order.length; j++) {
        const low = value[order[i]!]
        const high = value[order[j]!]
        if (low !== undefined && high !== undefined && low >= high) {
          ctx.addIssue({
            code: 'custom',
            path: [order[i]!],
            message: `must be less than ${order[j]} (${high})`,
          })
        }
      }
    }
  })

export const contextManagementSchema = z.strictObject({
  /** Observation masking of old tool results (default on). */
  masking: z.boolean().optional(),
  observationWindow: nonNegativeInt.optional(),
  compactAt: z
    .number()
    .gt(0, 'expected a fraction above 0')
    .max(1, 'expected a fraction of at most 1')
    .optional(),
})

/** Subagents (the Agent tool). */
export const agentsSchema = z.strictObject({
  /** Most subagents running at once; more wait for a slot. */
  maxParallel: positiveInt.max(32, 'expected at most 32').optional(),
})

/** How failed requests to the endpoint are retried (README "Retries"). */
export const retrySchema = z.strictObject({
  maxAttempts: positiveInt.max(20, 'expected at most 20 attempts').optional(),
  maxRetryAfterSeconds: nonNegativeInt.optional(),
})

const sandboxModeSchema = z.enum(['off', 'workspace-write'], {
  error: 'expected "off" or "workspace-write"',
})

/** `"workspace-write"`, `"off"`, or `{"mode": …, "network": true}` (README "Bash sandbox"). */
export const sandboxSchema = z.union(
  [sandboxModeSchema, z.strictObject({ mode: sandboxModeSchema, network: z.boolean().optional() })],
  { error: 'expected "off", "workspace-write" or {"mode": "workspace-write", "network": false}' },
)

/** Extra request headers for the model endpoint (its origin only): `{"x-portkey-provider": "openai"}`. */
export const headersSchema = z
  .record(
    z.string(),
    z.string({ error: 'expected the header value as a string' }).superRefine((value, ctx) => {
      const problem = headerValueProblem(value)
      if (problem) ctx.addIssue({ code: 'custom', message: problem })
    }),
  )
  .superRefine((headers, ctx) => {
    // Checked here rather than as the record's key schema, whose own message would replace this one.
    for (const name of Object.keys(headers)) {
      const problem = headerNameProblem(name)
      if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem })
    }
  })

export const settingsSchema = z.strictObject({
  /** Editors add it for completion; ignored. */
  $schema: z.string().optional(),
  model: z.string().min(1, 'expected a model id').optional(),
  baseUrl: httpUrl.optional(),
  apiKey: z.string().optional(),
  /** The environment variable the key is read from (the setup form's choice), when no key is given. */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name such as OPENROUTER_API_KEY')
    .optional(),
  headers: headersSchema.optional(),
  mode: z.enum(['safe', 'auto', 'plan', 'dangerous', 'ci']).optional(),
  permissions: permissionsSchema.optional(),
  /** Directories readable and writable like the workspace (as `--add-dir`); relative to the workspace. */
  additionalDirectories: z.array(z.string().min(1, 'expected a directory path')).optional(),
  models: z.record(z.string(), profileOverrideSchema).optional(),
  maxSteps: positiveInt.optional(),
  search: searchSchema.optional(),
  embeddings: embeddingsSchema.optional(),
  mcpServers: z.record(z.string(), mcpServerSchema).optional(),
  /** Claude Code's plugin switches, `{"name@marketplace": true}`: over `agent-tui plugin enable` (docs/plugins.md). */
  enabledPlugins: z
    .record(z.string(), z.union([z.boolean(), z.array(z.string())], { error: 'expected true or false' }))
    .optional(),
  /** Claude Code's marketplaces for a project: accepted and named at start, never fetched (docs/plugins.md). */
  extraKnownMarketplaces: z.record(z.string(), z.unknown()).optional(),
  mcp: mcpSettingsSchema.optional(),
  consentTimeoutSeconds: z.number().min(0, 'expected 0 (wait forever) or more seconds').optional(),
  circuitBreaker: circuitBreakerSchema.optional(),
  retry: retrySchema.optional(),
  contextManagement: contextManagementSchema.optional(),
  agents: agentsSchema.optional(),
  keybindings: z
    .record(
      z.string(),
      z.union([z.string(), z.array(z.string()).min(1)], {
        error: 'expected a key or a list of keys, e.g. "ctrl+t" or ["ctrl+t", "f2"]',
      }),
    )
    .optional(),
  /** The UI's palette (docs/tui.md#themes); `auto` follows the terminal's background. */
  theme: z.enum(THEME_SETTINGS, { error: `expected one of ${THEME_SETTINGS.join(', ')}` }).optional(),
  /** How the prompt edits: `vim` for vim's modes (Claude Code's setting; `/vim` toggles and saves it). */
  editorMode: z.enum(['normal', 'vim'], { error: 'expected "normal" or "vim"' }).optional(),
  /** The bell and a desktop notification when a permission prompt waits or a turn ends unwatched (docs/tui.md). */
  notifications: z
    .strictObject({
      onConsent: z.boolean().optional(),
      onTurnEnd: z.boolean().optional(),
      method: z.enum(['auto', 'bell', 'desktop', 'off']).optional(),
    })
    .optional(),
  summarizerModel: z.string().min(1).optional(),
  /** Claude Code's format: `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", …}]}]}`. */
  hooks: hooksSettingsSchema.optional(),
  /** Claude Code's status line command: its first line of output is shown under the status bar. */
  statusLine: z
    .strictObject({
      type: z.literal('command', { error: 'expected "command"' }),
      command: z.string().min(1, 'expected the command to run'),
      padding: z.number().int().min(0).max(20).optional(),
    })
    .optional(),
  /** Turns every hook off (Claude Code's setting of the same name). */
  disableAllHooks: z.boolean().optional(),
  sandbox: sandboxSchema.optional(),
  /**
   * Read Claude Code's places beside agent-tui's own (`.claude/`, `~/.claude/`, `~/.claude.json`,
   * `CLAUDE.local.md`…; docs/coming-from-claude-code.md). Default true; `--no-claude-dirs` wins.
   */
  claudeDirs: z.boolean().optional(),
  /** Variables set for the commands agent-tui starts (Bash, hooks, MCP servers), as Claude Code's `env`. */
  env: z.record(z.string(), z.string({ error: 'expected a string value' })).optional(),
  /** Exactly the tools the model is offered (as `--tools`): names, `*` a wildcard. */
  tools: z
    .array(z.string().regex(TOOL_LIST_NAME, 'expected a tool name such as Read or mcp__github__*'))
    .optional(),
  /** Tool definitions that do not fit the window's budget wait behind ToolSearch: auto, always, never. */
  deferTools: z.enum(['auto', 'always', 'never']).optional(),
})

/** One validated settings file, or the merge of several. */
export type Settings = z.infer<typeof settingsSchema>
export type ProfileOverride = z.infer<typeof profileOverrideSchema>
export type SearchSettings = z.infer<typeof searchSchema>
export type EmbeddingsSettings = z.infer<typeof embeddingsSchema>
export type CircuitBreakerSettings = z.infer<typeof circuitBreakerSchema>
export type McpSettings = z.infer<typeof mcpSettingsSchema>
export type ContextManagementSettings = z.infer<typeof contextManagementSchema>
