/** Model profiles (docs/configuration.md#model-profiles): what the runtime needs to know about a model family to budget and shape requests. */

import { hostedApi, localEndpoint } from './endpoint-kind.js'
import { LOCAL_FAMILIES } from './local-families.js'
import type { TextToolFormat } from './text-tool-markup.js'

export type Architecture = 'dense' | 'moe' | 'mla' | 'hybrid'

export type ApplyPatchOffer = 'replace' | 'beside' | false

/** The system prompt and tool descriptions a session sends: the compact ones for small windows. */
export type PromptVariant = 'full' | 'compact'

/** A family's own tool-call format, as its chat template writes it; 'none': the template has none. */
export type ToolCallFormat = TextToolFormat | 'none'

/**
 * Whether a reply that is nothing but `{"name": …, "parameters": {…}}` is read as a call: Llama 3's
 * untagged form, for Llama families and models of unknown family (other families answer in JSON too).
 */
export function readsBareJson(format: ToolCallFormat | undefined): boolean {
  return format === undefined || format === 'llama'
}

/** At most this window (tokens), the compact prompt: the full prompt and tool definitions, ~7k tokens, would take over 40 % of it. */
export const COMPACT_PROMPT_WINDOW = 16_384

export interface ModelProfile {
  /** Name of the table entry that matched ('default' when none did). */
  family: string
  /** Context window in tokens. */
  contextLimit: number
  /** Compact when the estimated prompt reaches this fraction of contextLimit. */
  compactAt: number
  /** How many recent tool results stay unmasked. */
  observationWindow: number
  /** Characters per token, for estimates before the server reports usage. */
  charToTokenRatio: number
  architecture: Architecture
  supportsTools: boolean
  supportsVision: boolean
  /** Understands OpenAI's `tool_choice: {type: 'allowed_tools'}` form. */
  supportsAllowedTools: boolean
  supportsParallelToolCalls: boolean
  /**
   * Offer apply_patch, the patch format the model was trained on: in place of Edit and Write
   * ('replace'), beside them ('beside'), or not (false). Chosen when the session starts.
   */
  applyPatch: ApplyPatchOffer
  /**
   * Tool calls the model writes as text are run as calls (a local server that does not parse them):
   * on for local families and local endpoints, off for hosted APIs (docs/context.md#text-tool-call-formats).
   */
  textToolCalls: boolean
  /** The family's own format; absent for unknown models. Llama's bare-JSON form is read only for llama or unknown. */
  toolCallFormat?: ToolCallFormat
  /** Chosen from the window unless set: compact at COMPACT_PROMPT_WINDOW tokens or less. */
  promptVariant: PromptVariant
  /** Where contextLimit came from when not the table: the endpoint's model listing or the settings. */
  contextLimitSource?: 'endpoint' | 'settings'
  /**
   * What the endpoint says it serves the model with, when settings set a larger contextLimit: such a
   * server refuses longer prompts or (Ollama) cuts them silently, so agent-tui warns at start.
   */
  servedContextLimit?: { tokens: number; source?: string }
  /** Which field or route of the endpoint gave it (`max_model_len in the endpoint's model listing`, `llama.cpp's /props, n_ctx`…). */
  contextLimitDetail?: string
}

export type ProfileValues = Omit<
  ModelProfile,
  'family' | 'contextLimitSource' | 'contextLimitDetail' | 'servedContextLimit'
>

export interface ProfileEntry {
  family: string
  /** Glob patterns (`*`, `?`), case-insensitive, matched against the whole id and its last path segment. */
  patterns: readonly string[]
  profile: Partial<ProfileValues>
}

export const DEFAULT_PROFILE: Readonly<ModelProfile> = Object.freeze({
  family: 'default',
  contextLimit: 32_768,
  compactAt: 0.7,
  observationWindow: 4,
  charToTokenRatio: 4.0,
  architecture: 'dense',
  supportsTools: true,
  supportsVision: false,
  supportsAllowedTools: false,
  supportsParallelToolCalls: false,
  applyPatch: false,
  textToolCalls: false,
  promptVariant: 'full',
})

/** Hosted frontier models: vision and parallel calls; only OpenAI's own API knows allowed_tools. */
const OPENAI = {
  architecture: 'dense',
  supportsVision: true,
  supportsAllowedTools: true,
  supportsParallelToolCalls: true,
  textToolCalls: false,
} as const
/** apply_patch for the models trained on it (docs/tools.md#apply_patch): in place of Edit and Write, or beside. */
const PATCH_REPLACE = { applyPatch: 'replace' } as const
const PATCH_BESIDE = { applyPatch: 'beside' } as const
const PROXIED = { supportsVision: true, supportsParallelToolCalls: true, textToolCalls: false } as const
/** A model people run on their own servers: tool calls written as text are read (text-tool-calls.ts). */
const LOCAL = { textToolCalls: true } as const

/**
 * Ordered: the first entry with a matching pattern wins, so specific families precede general ones
 * (glm-4.7-flash before glm-4.7, deepseek-r1-distill before deepseek). Values not given come from
 * DEFAULT_PROFILE. The seed rows are the table in docs/configuration.md#model-profiles.
 */
export const PROFILE_TABLE: readonly ProfileEntry[] = Object.freeze([
  ...LOCAL_FAMILIES,
  {
    // Qwen2.5(-Coder) config.json: 32,768 (131,072 with YaRN); Hermes-style <tool_call>.
    family: 'qwen2.5',
    patterns: ['qwen2.5*', 'qwen-2.5*', 'qwen-coder*'],
    profile: {
      contextLimit: 32_768,
      compactAt: 0.7,
      observationWindow: 4,
      charToTokenRatio: 3.5,
      architecture: 'dense',
      ...LOCAL,
      toolCallFormat: 'hermes',
    },
  },
  {
    family: 'glm-4.7-flash',
    patterns: ['glm-4.7-flash*'],
    profile: {
      contextLimit: 128_000,
      compactAt: 0.75,
      observationWindow: 8,
      charToTokenRatio: 4.0,
      architecture: 'moe',
      supportsParallelToolCalls: true,
    },
  },
  {
    family: 'glm-4.7',
    patterns: ['glm-4.7*'],
    profile: {
      contextLimit: 200_000,
      compactAt: 0.7,
      observationWindow: 8,
      architecture: 'moe',
      supportsParallelToolCalls: true,
    },
  },
  {
    family: 'deepseek-r1-distill',
    patterns: ['deepseek-r1-distill*'],
    profile: {
      contextLimit: 32_768,
      compactAt: 0.7,
      observationWindow: 4,
      architecture: 'dense',
      ...LOCAL,
      toolCallFormat: 'deepseek',
    },
  },
  {
    family: 'deepseek-v3',
    patterns: ['deepseek-v3*', 'deepseek-chat*'],
    profile: {
      contextLimit: 128_000,
      compactAt: 0.8,
      observationWindow: 8,
      charToTokenRatio: 3.8,
      architecture: 'mla',
      supportsParallelToolCalls: true,
      ...LOCAL,
      toolCallFormat: 'deepseek',
    },
  },
  {
    family: 'kimi',
    patterns: ['kimi*', '*k2.5*'],
    profile: {
      contextLimit: 256_000,
      compactAt: 0.7,
      observationWindow: 8,
      architecture: 'moe',
      supportsVision: true,
      supportsParallelToolCalls: true,
    },
  },
  {
    family: 'minimax',
    patterns: ['minimax*'],
    profile: {
      contextLimit: 1_000_000,
      compactAt: 0.85,
      observationWindow: 12,
      architecture: 'hybrid',
      supportsParallelToolCalls: true,
    },
  },
  {
    // Gemma 3 (4B–27B) model card: "a large, 128K context window"; no tool-call template in Ollama or
    // llama.cpp, so a call comes back as text if at all; the larger sizes take images.
    family: 'gemma-3',
    patterns: ['gemma-3*', 'gemma3*'],
    profile: {
      contextLimit: 131_072,
      compactAt: 0.65,
      observationWindow: 2,
      charToTokenRatio: 3.5,
      architecture: 'dense',
      supportsTools: false,
      supportsVision: true,
      ...LOCAL,
      toolCallFormat: 'none',
    },
  },
  {
    family: 'wizard',
    patterns: ['*wizard*'],
    profile: {
      contextLimit: 4096,
      compactAt: 0.6,
      observationWindow: 2,
      architecture: 'dense',
      supportsTools: false,
      ...LOCAL,
    },
  },
  {
    family: 'gpt-5',
    patterns: ['gpt-5*'],
    profile: { ...OPENAI, ...PATCH_REPLACE, contextLimit: 400_000, compactAt: 0.65, observationWindow: 8 },
  },
  {
    family: 'gpt-4.1',
    patterns: ['gpt-4.1*'],
    profile: { ...OPENAI, ...PATCH_BESIDE, contextLimit: 1_047_576, compactAt: 0.6, observationWindow: 12 },
  },
  {
    family: 'gpt-4o',
    patterns: ['gpt-4o*', 'chatgpt-4o*'],
    profile: { ...OPENAI, contextLimit: 128_000, compactAt: 0.8, observationWindow: 8 },
  },
  {
    family: 'o-series',
    patterns: ['o3*', 'o4*'],
    profile: { ...OPENAI, ...PATCH_BESIDE, contextLimit: 200_000, compactAt: 0.8, observationWindow: 8 },
  },
  {
    // codex-mini and the other Codex models work in apply_patch, as the Codex CLI has them.
    family: 'codex',
    patterns: ['codex*', '*-codex*'],
    profile: { ...OPENAI, ...PATCH_REPLACE, contextLimit: 200_000, compactAt: 0.8, observationWindow: 8 },
  },
  {
    // gpt-oss model card: a 128k (131,072-token) context; Harmony's commentary channel to=functions.NAME.
    family: 'gpt-oss',
    patterns: ['gpt-oss*'],
    profile: {
      contextLimit: 131_072,
      compactAt: 0.75,
      observationWindow: 8,
      architecture: 'moe',
      supportsParallelToolCalls: true,
      ...LOCAL,
      toolCallFormat: 'harmony',
    },
  },
  {
    family: 'claude',
    patterns: ['claude*', 'anthropic.claude*'],
    profile: {
      ...PROXIED,
      contextLimit: 200_000,
      compactAt: 0.75,
      observationWindow: 8,
      charToTokenRatio: 3.5,
    },
  },
  {
    family: 'gemini',
    patterns: ['gemini*'],
    profile: { ...PROXIED, contextLimit: 1_048_576, compactAt: 0.6, observationWindow: 12 },
  },
])

function globToRegExp(pattern: string): RegExp {
  const source = pattern
    .toLowerCase()
    .split('')
    .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[\\^$.+()|[\]{}]/g, '\\$&')))
    .join('')
  return new RegExp(`^${source}$`)
}

/**
 * Whether a glob-ish pattern (`*`, `?`, case-insensitive) matches a model id, either whole
 * (`openai/gpt-4o`) or by its last path segment (`Qwen/Qwen2.5-Coder-32B` matches `qwen2.5*`).
 */
export function matchesModelPattern(pattern: string, modelId: string): boolean {
  const id = modelId.toLowerCase()
  const base = id.split('/').at(-1) ?? id
  const re = globToRegExp(pattern)
  return re.test(id) || re.test(base)
}

function defined<T extends object>(values: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>
}

/**
 * The profile for a model: the first matching table entry over DEFAULT_PROFILE, then the context length
 * the endpoint reported (it knows how the model is actually served), then every matching settings
 * override in insertion order (later ones win). Pure.
 */
export function resolveProfile(
  modelId: string,
  opts: {
    overrides?: Record<string, Partial<ModelProfile>>
    endpointContextLength?: number
    /** Where the endpoint said it, for /context. */
    endpointContextSource?: string
    /** The endpoint: a hosted API parses tool calls itself (no text recovery); a local one may not. */
    baseUrl?: string
  } = {},
): ModelProfile {
  const entry = PROFILE_TABLE.find((e) => e.patterns.some((p) => matchesModelPattern(p, modelId)))
  let profile: ModelProfile = {
    ...DEFAULT_PROFILE,
    ...entry?.profile,
    family: entry?.family ?? DEFAULT_PROFILE.family,
  }
  const reported = opts.endpointContextLength
  if (reported !== undefined && Number.isFinite(reported) && reported > 0) {
    profile.contextLimit = reported
    profile.contextLimitSource = 'endpoint'
    if (opts.endpointContextSource) profile.contextLimitDetail = opts.endpointContextSource
  }
  if (opts.baseUrl !== undefined) {
    // A hosted API parses calls (markup in its text is the model quoting it); an unknown model on a
    // local server may be served without a parser.
    if (hostedApi(opts.baseUrl)) profile.textToolCalls = false
    else if (entry?.profile.textToolCalls === undefined && localEndpoint(opts.baseUrl))
      profile.textToolCalls = true
  }
  let variant: PromptVariant | undefined
  for (const [pattern, override] of Object.entries(opts.overrides ?? {})) {
    if (!matchesModelPattern(pattern, modelId)) continue
    const values = defined(override)
    profile = { ...profile, ...values }
    if (values.contextLimit !== undefined) {
      profile.contextLimitSource = 'settings'
      delete profile.contextLimitDetail
    }
    if (values.promptVariant !== undefined) variant = values.promptVariant
  }
  if (
    reported !== undefined &&
    profile.contextLimitSource === 'settings' &&
    reported < profile.contextLimit
  ) {
    profile.servedContextLimit = {
      tokens: reported,
      ...(opts.endpointContextSource ? { source: opts.endpointContextSource } : {}),
    }
  }
  profile.promptVariant = variant ?? (profile.contextLimit <= COMPACT_PROMPT_WINDOW ? 'compact' : 'full')
  return profile
}
