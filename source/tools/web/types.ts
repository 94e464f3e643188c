/** Shared types of the web tools (WebFetch, WebSearch) and the services the session hands them. */

export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/** Resolves a host name to its addresses (the system resolver in a session; a table in tests). */
export type HostResolver = (hostname: string, signal: AbortSignal) => Promise<ResolvedAddress[]>

export interface SummaryRequest {
  url: string
  prompt: string
  /** The page as Markdown or text, already cut to what the summarizer model is sent. */
  content: string
}

/** Answers a prompt about fetched content with the configured small model (settings `summarizerModel`). */
export type Summarizer = (
  request: SummaryRequest,
  signal: AbortSignal,
) => Promise<{ text: string; model: string }>

/** A notice for the user (TUI notice line, stderr / stream-json event in headless runs). */
export type Notify = (level: 'info' | 'warn' | 'error', text: string) => void

export type SearchProviderName = 'searxng' | 'brave' | 'tavily' | 'exa'

/** Settings `search` (validated by the config schema). */
export interface SearchSettings {
  provider: SearchProviderName
  url?: string | undefined
  apiKeyEnv?: string | undefined
}

/** Session-owned services and settings for the web tools; everything is optional. */
export interface WebToolOptions {
  summarize?: Summarizer
  search?: SearchSettings
  /** Where API keys are read from (process.env in a session). */
  env?: Readonly<Record<string, string | undefined>>
  notify?: Notify
  /** The user's settings file, named in "how to configure" hints. */
  settingsFile?: string
  /** Host resolution; the system resolver by default. Tests map names to loopback here. */
  resolve?: HostResolver
  /** Whole-call timeout; 30 s by default. */
  timeoutMs?: number
  now?: () => number
}
